/// How many values a JSON text holds, counted over its bytes without parsing it: each `,` `[` and `{`
/// outside strings, plus one. For a text jansson accepts it is at least the number of values, members'
/// names aside (a member's `"name": value` counts once).
///
/// jansson takes some 80 bytes for a number and 280 for an empty object: a 16 MiB message of `{},`
/// took 1.5 GB while it was read, only to be refused as a batch past its limit. So a message that may
/// hold more than the connection's `maxValues` (``mayExceed(_:limit:)``: one of more than twice that
/// many bytes) is counted first and refused past it, unparsed; so is a file an import names.
public enum JSONValueCount {
    /// The most values one message may hold by default: some 300 MB for jansson at worst.
    public static let maximum = 1 << 20

    /// Whether a message of `byteCount` bytes can hold more than `limit` values: n values take 2n - 1
    /// bytes at least (`0,0,…,0`).
    public static func mayExceed(_ byteCount: Int, limit: Int) -> Bool { (byteCount + 1) / 2 > limit }

    /// The values in `text`, counted up to `limit + 1` (then counting stops).
    public static func count(_ text: UnsafeRawBufferPointer, stoppingAfter limit: Int) -> Int {
        var count = 1
        var inString = false, escaped = false
        for byte in text {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                count += 1
                if count > limit { return count }
            }
        }
        return count
    }
}
