/// Writes a JSON text indented as jansson's `JSON_INDENT(n)` writes a value — one member or element
/// a line, `": "` after a member name, `{}` and `[]` for empty containers, no newline at the end —
/// from the text alone. No value is built: `switchboard call` printed a 149 kB agenda through a
/// jansson parse, a precision walk and two dumps, 60 M instructions where answering took 27 M.
///
/// Tokens are copied as they are (a number keeps its digits, a string its escapes); white space
/// between them is replaced. The text must be one JSON value (``JSONScanner/scan(_:maxDepth:)``
/// checks that); other text gives other text, never a trap.
public enum JSONIndenter {
    public static func indented(_ text: UnsafeRawBufferPointer, spaces: Int = 2) -> [UInt8] {
        indented(text.assumingMemoryBound(to: UInt8.self), spaces: spaces)
    }

    public static func indented(_ text: [UInt8], spaces: Int = 2) -> [UInt8] {
        text.withUnsafeBufferPointer { indented($0, spaces: spaces) }
    }

    /// Runs of bytes are appended whole (strings, numbers, indentation): a byte at a time, printing
    /// the 149 kB agenda took 7 M instructions.
    private static func indented(_ text: UnsafeBufferPointer<UInt8>, spaces: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count + text.count / 2)
        var depth = 0
        var index = 0
        func newLine() {
            output.append(0x0A)
            var left = max(0, depth * spaces)
            while left > 0 {
                let run = min(left, blanks.count)
                output.append(contentsOf: blanks[..<run])
                left -= run
            }
        }
        while index < text.count {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                var next = index + 1
                while next < text.count, isSpace(text[next]) { next += 1 }
                output.append(byte)
                if next < text.count, text[next] == close {
                    output.append(close)
                    index = next + 1
                    continue
                }
                depth += 1
                newLine()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newLine()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newLine()
            case UInt8(ascii: ":"):
                output.append(byte)
                output.append(0x20)
            case _ where isSpace(byte):
                break
            default:
                // A string (through its closing quote), a number or a literal.
                let end = byte == UInt8(ascii: "\"") ? stringEnd(text, from: index) : tokenEnd(text, from: index)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[index..<end]))
                index = end
                continue
            }
            index += 1
        }
        return output
    }

    private static let blanks = [UInt8](repeating: 0x20, count: 128)

    /// Just past the string token opening at `start` (or the end of the text, when it is not closed).
    private static func stringEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return text.count
    }

    /// Just past the number or literal starting at `start`: the next structural byte or space.
    private static func tokenEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","),
                 UInt8(ascii: ":"), UInt8(ascii: "\""), 0x20, 0x0A, 0x0D, 0x09:
                return index
            default: index += 1
            }
        }
        return text.count
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
