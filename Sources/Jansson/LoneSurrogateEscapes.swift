/// Finds `\uD800`–`\uDFFF` escapes in JSON text that are not one half of a pair.
///
/// JSON's grammar allows them (RFC 8259 §8.2 calls their meaning unpredictable): JavaScript's
/// `JSON.stringify` writes one for a string cut inside an emoji, Python's `json.dumps` one for a file
/// name that is not UTF-8. jansson refuses such text. The search is lexical: it reads string tokens
/// only (between unescaped quotes), so it needs no valid JSON around them, and it is linear in the
/// text, allocating only the ranges it returns.
///
/// - Important: It is the slow path: run it only on text jansson refused.
public enum LoneSurrogateEscapes {
    /// The ranges of the lone escapes (6 bytes each, `\ud83d`) in `text`, in order; a high surrogate
    /// escape followed at once by a low one is a pair and not reported.
    public static func find(in text: UnsafeRawBufferPointer) -> [Range<Int>] {
        var found: [Range<Int>] = []
        visit(text) { found.append($0); return true }
        return found
    }

    public static func find(in text: [UInt8]) -> [Range<Int>] {
        text.withUnsafeBytes { find(in: $0) }
    }

    /// Whether `text` holds at least one lone escape.
    public static func present(in text: UnsafeRawBufferPointer) -> Bool {
        var any = false
        visit(text) { _ in any = true; return false }
        return any
    }

    /// `text` with each lone escape replaced by `\ufffd` (U+FFFD REPLACEMENT CHARACTER), which has the
    /// same length: offsets into the text stay valid. `nil` when there is none.
    public static func replacedByReplacementCharacter(_ text: UnsafeRawBufferPointer) -> (text: [UInt8], count: Int)? {
        let ranges = find(in: text)
        guard !ranges.isEmpty else { return nil }
        var copy = Array(text)
        let replacement = Array("\\ufffd".utf8)
        for range in ranges where range.count == replacement.count && range.upperBound <= copy.count {
            copy.replaceSubrange(range, with: replacement)
        }
        return (copy, ranges.count)
    }

    /// Calls `body` with each lone escape until it returns false.
    private static func visit(_ text: UnsafeRawBufferPointer, _ body: (Range<Int>) -> Bool) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), u = UInt8(ascii: "u")
        var index = 0
        var inString = false
        while index < text.count {
            let byte = text[index]
            guard inString else {
                if byte == quote { inString = true }
                index += 1
                continue
            }
            if byte == quote {
                inString = false
                index += 1
                continue
            }
            guard byte == backslash else {
                index += 1
                continue
            }
            // An escape: `\u` and four hex digits, or any other escaped byte (`\\`, `\"`) skipped whole.
            guard index + 1 < text.count, text[index + 1] == u, let unit = hex4(text, at: index + 2) else {
                index += 2
                continue
            }
            switch unit {
            case 0xD800...0xDBFF:
                if index + 7 < text.count, text[index + 6] == backslash, text[index + 7] == u,
                   let low = hex4(text, at: index + 8), (0xDC00...0xDFFF).contains(low) {
                    index += 12
                    continue
                }
                guard body(index..<(index + 6)) else { return }
            case 0xDC00...0xDFFF:
                guard body(index..<(index + 6)) else { return }
            default:
                break
            }
            index += 6
        }
    }

    /// The four hex digits at `position` as a number; `nil` when they are not four hex digits.
    public static func hex4(_ text: UnsafeRawBufferPointer, at position: Int) -> UInt32? {
        guard position >= 0, position + 4 <= text.count else { return nil }
        var value: UInt32 = 0
        for offset in position..<(position + 4) {
            let byte = text[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
