import Jansson
import Testing

/// What a plugin writes never reaches the host's log raw: its stderr lines, the method names of calls
/// it is refused and its error messages have their control characters escaped and are cut, so it can
/// neither forge a log line nor drive the terminal; the error message a client gets is cut too. The
/// tests wait for the log lines (events), never on time.
@Suite("Plugin text in the log (binary)", .serialized, .offCooperativePool)
struct PluginLogTextBinaryTests {
    static let forged = "before\r\n2026-01-01T00:00:00+0000 critical switchboard: FORGED \u{1B}[31mRED\u{1B}]0;title\u{07} end"

    /// Whether no line of the log starts with the forged entry and no raw ESC or CR is in it.
    static func expectClean(_ log: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-01-01T00:00:00+0000 critical") }, "\(log)", sourceLocation: sourceLocation)
        #expect(!log.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" || $0 == "\u{07}" }, "\(log)", sourceLocation: sourceLocation)
    }

    @Test("A plugin's stderr lines with CR, ESC and BEL are logged escaped, each on a line of its own under the plugin's name")
    func stderrIsEscaped() throws {
        let host = try PluginAnswerBinaryTests.host()
        _ = try PluginBinaryTests.call(host, 1, "liar.stderr", #"{"text":\#(JSONValue.string(Self.forged).jsonText())}"#)
        try host.waitForStderr(containing: "RED")
        Self.expectClean(host.stderrText)
        #expect(host.stderrText.contains(#"liar: before\r"#) && host.stderrText.contains(#"\u001b[31mRED"#), "\(host.stderrText)")
    }

    @Test("A refused callback's method name is logged escaped")
    func refusedMethodIsEscaped() throws {
        let host = try PluginAnswerBinaryTests.host()
        _ = try PluginBinaryTests.call(host, 1, "liar.callBack", #"{"method":\#(JSONValue.string("mail." + Self.forged).jsonText())}"#)
        try host.waitForStderr(containing: "which its calls do not allow")
        Self.expectClean(host.stderrText)
    }

    @Test("A plugin's -32603 with a 5 MB message: the client's message is cut, the log line escaped and cut")
    func errorMessageIsCutAndEscaped() throws {
        let host = try PluginAnswerBinaryTests.host()
        let message = Self.forged + " " + String(repeating: "M", count: 5_000_000)
        let members = #""error":{"code":-32603,"message":\#(JSONValue.string(message).jsonText())}"#
        let error = try PluginBinaryTests.call(host, 1, "liar.say", PluginAnswerBinaryTests.say(members))["error"]
        let text = error?["message"]?.stringValue ?? ""
        #expect(text.hasPrefix("before") && text.count <= 1_001, "\(text.count) characters")
        try host.waitForStderr(containing: "liar.say failed")
        Self.expectClean(host.stderrText)
        #expect(host.stderrText.utf8.count < 20_000, "\(host.stderrText.utf8.count) bytes of log")
    }
}
