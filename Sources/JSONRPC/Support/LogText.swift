/// Text from a peer made fit for one log line: control characters escaped as JSON escapes them (a CR
/// or LF cannot start a forged line, an ESC cannot drive the terminal), cut after `limit` characters.
public enum LogText {
    /// The most characters of a peer's text one log line keeps.
    public static let limit = 1_000

    /// `text` with C0 and C1 control characters, DEL and the Unicode line and paragraph separators
    /// escaped (`\n`, `\r`, `\t`, else `\u001b`), cut after `limit` characters with `… (N bytes)`.
    public static func escaped(_ text: String, limit: Int = LogText.limit) -> String {
        var result = ""
        var kept = 0
        for scalar in text.unicodeScalars {
            guard kept < limit else { return result + "… (\(text.utf8.count) bytes)" }
            kept += 1
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
