import JSONRPC
import Testing

/// A peer's text in a log line: control characters escaped as JSON escapes them, cut at the limit.
@Suite("Log text")
struct LogTextTests {
    @Test("CR, LF, tab, ESC, BEL, NUL, DEL, C1 and the Unicode line separators are escaped; other text is kept",
          arguments: [
              ("a\r\nb", #"a\r\nb"#), ("\t", #"\t"#), ("\u{1B}[31m", #"\u001b[31m"#), ("\u{07}\u{0}", #"\u0007\u0000"#),
              ("\u{7F}\u{85}\u{9B}", #"\u007f\u0085\u009b"#), ("x\u{2028}y\u{2029}", #"x\u2028y\u2029"#), ("zwölf 🌍 \"q\"", "zwölf 🌍 \"q\""),
          ])
    func escapes(text: String, logged: String) {
        #expect(LogText.escaped(text) == logged)
    }

    @Test("past the limit the text is cut, with its whole length in bytes")
    func cuts() {
        #expect(LogText.escaped("abcdef", limit: 3) == "abc… (6 bytes)")
        #expect(LogText.escaped("abc", limit: 3) == "abc")
        #expect(LogText.escaped(String(repeating: "\n", count: 5_000)).count == 2 * LogText.limit + "… (5000 bytes)".count)
    }
}
