import Jansson

/// A request frame with the id (and, in push runs, a unique token) filled in: the method and params
/// are framed once, each request only writes its number.
struct RequestTemplate {
    private let prefix: [UInt8] = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private let suffixParts: [[UInt8]]
    private let suffixLength: Int
    let framing: Framing

    /// `params` is compact JSON or nil; in it, each `%ID%` becomes the request's token.
    init(method: String, params: String?, framing: Framing) {
        let methodText = JSONWriterText.quoted(method)
        let suffix = params.map { #","method":\#(methodText),"params":\#($0)}"# } ?? #","method":\#(methodText)}"#
        suffixParts = suffix.split(separator: "%ID%", omittingEmptySubsequences: false).map { Array($0.utf8) }
        suffixLength = suffixParts.reduce(0) { $0 + $1.count }
        self.framing = framing
    }

    func write(id: UInt64, token: String = "", into buffer: ByteBuffer) {
        // The id's digits, written backwards into a small stack buffer: no allocation per request.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var value = id
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            let idText = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[first...]))
            let tokenBytes = Array(token.utf8)
            tokenBytes.withUnsafeBytes { tokenText in
                if framing == .lsp {
                    let length = prefix.count + idText.count + suffixLength + tokenText.count * (suffixParts.count - 1)
                    buffer.append(Array("Content-Length: \(length)\r\n\r\n".utf8))
                }
                buffer.append(prefix)
                buffer.append(idText)
                for (index, part) in suffixParts.enumerated() {
                    if index > 0 { buffer.append(tokenText) }
                    buffer.append(part)
                }
                if framing == .ndjson { buffer.append(Self.newline) }
            }
        }
    }

    private static let newline: [UInt8] = [0x0A]
}

/// JSON text through jansson (the project's `JSONWriter`).
enum JSONWriterText {
    /// `text` as a JSON string, quoted and escaped.
    static func quoted(_ text: String) -> String {
        let value = JanssonValue.string(text)
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }

    /// Compact JSON text of `text` if it is JSON, else nil.
    static func compact(_ text: String) -> String? {
        guard let value = try? JSONParser.parse(text) else { return nil }
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }
}
