import Jansson

/// An opaque, stable pagination cursor: the position after the last item served (its sort key and id),
/// tied to the list it came from.
///
/// Lists are ordered by a unique key, and a page starts strictly after the cursor's key, so items
/// inserted between two page requests are never served twice and never push others out of view.
/// The text is `base64url(list \u{1F} sortKey \u{1F} id \u{1F} checksum)`: a cursor from another list,
/// or one that was edited, is refused with `-32602` naming `cursor`, as is any text longer than
/// ``maximumLength`` (no list gives out such a cursor) or holding `U+0000`. A part holding the
/// separator is escaped, so every cursor handed out reads back.
public struct Cursor: Sendable, Equatable {
    /// The longest cursor text accepted, in characters: a search cursor carries its query's terms.
    public static let maximumLength = 32_768

    /// Which list: e.g. `feed`, or `inbox/alice@example.com/Inbox/unread`.
    public var list: String
    /// The sort key of the last item served (a timestamp, a score), as text.
    public var sortKey: String
    /// The id of the last item served, breaking ties in `sortKey`.
    public var id: String

    public init(list: String, sortKey: String, id: String) {
        self.list = list
        self.sortKey = sortKey
        self.id = id
    }

    public var encoded: String {
        let body = [list, sortKey, id].map(Self.escaped).joined(separator: "\u{1F}")
        return Base64URL.encode(Array((body + "\u{1F}" + Self.checksum(body)).utf8))
    }

    /// Reads `text` as a cursor of `list`; throws the `-32602` error a client should see otherwise.
    /// `maximumLength` is for a list whose cursors carry a name of any length (a plugin's tool).
    public static func decode(_ text: String, list: String, maximumLength: Int = maximumLength) throws(JSONFieldError) -> Cursor {
        guard text.utf8.count <= maximumLength, let bytes = Base64URL.decode(text), !bytes.contains(0) else {
            throw invalid(text, maximumLength: maximumLength)
        }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, checksum(parts[0...2].joined(separator: "\u{1F}")) == parts[3],
              let listed = unescaped(parts[0]), let sortKey = unescaped(parts[1]), let id = unescaped(parts[2]) else {
            throw invalid(text, maximumLength: maximumLength)
        }
        guard listed == list else {
            throw JSONFieldError(field: "cursor", expected: "a cursor of this list, not of \(JSONFieldError.excerpt(listed))", got: JSONFieldError.quote(text))
        }
        return Cursor(list: listed, sortKey: sortKey, id: id)
    }

    /// The `-32602` error for a cursor that is not one this list gave out; it quotes a short excerpt.
    public static func invalid(_ text: String, maximumLength: Int = maximumLength) -> JSONFieldError {
        let limit = maximumLength == .max ? "" : " (at most \(maximumLength) characters)"
        return JSONFieldError(field: "cursor", expected: "a nextCursor returned by this list\(limit)", got: JSONFieldError.quote(text))
    }

    /// A part with the separator and the escape itself escaped (`ESC 1`, `ESC ESC`), so an id holding
    /// U+001F (a plugin's tool name may) still makes a cursor that reads back. A part without them is
    /// unchanged: cursors handed out before stay valid. NUL is not escaped: a cursor holding one is
    /// refused (SQLite would read a bound id only up to it), and no list's ids hold one.
    private static func escaped(_ part: String) -> String {
        guard part.utf8.contains(where: { $0 == 0x1F || $0 == 0x1B }) else { return part }
        var out = ""
        for scalar in part.unicodeScalars {
            switch scalar {
            case "\u{1B}": out += "\u{1B}\u{1B}"
            case "\u{1F}": out += "\u{1B}1"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The part `escaped` made, or nil for an escape it never writes.
    private static func unescaped(_ part: String) -> String? {
        guard part.utf8.contains(0x1B) else { return part }
        var out = ""
        var iterator = part.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\u{1B}" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch iterator.next() {
            case "\u{1B}": out += "\u{1B}"
            case "1": out += "\u{1F}"
            default: return nil
            }
        }
        return out
    }

    /// FNV-1a, 32 bits, as hex: catches edits and truncation, not an adversary.
    static func checksum(_ text: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return String(hash, radix: 16)
    }
}

/// URL-safe base64 without padding.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8: UInt8] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt8($0)) })

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { output.append(alphabet[Int((value >> (18 - 6 * position)) & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        var index = 0
        while index < digits.count {
            let chunk = digits[index..<min(index + 4, digits.count)]
            var value: UInt32 = 0
            for (offset, digit) in chunk.enumerated() {
                guard let decoded = values[digit] else { return nil }
                value |= UInt32(decoded) << (18 - 6 * offset)
            }
            for position in 0..<(chunk.count - 1) { output.append(UInt8((value >> (16 - 8 * position)) & 255)) }
            index += 4
        }
        return output
    }
}
