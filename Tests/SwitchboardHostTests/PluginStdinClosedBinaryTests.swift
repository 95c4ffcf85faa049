import Jansson
import Testing

/// A plugin that closes its stdin and keeps running can answer no call again: the host sees it at the
/// next write (`EPIPE`), stops it and fails the call at once as a protocol failure; the next call
/// starts it again. The test waits on answers, never on time.
@Suite("Plugin closes its stdin (binary)", .serialized, .offCooperativePool)
struct PluginStdinClosedBinaryTests {
    @Test("After the plugin closed its stdin, the next call fails at once with reason protocol, not the time-out; the one after restarts it")
    func closedStdinFailsAtOnce() throws {
        let host = try PluginAnswerBinaryTests.host()
        #expect(try PluginBinaryTests.call(host, 1, "liar.closeStdin")["result"] != nil)
        let failed = try PluginBinaryTests.call(host, 2, "liar.ok")["error"]
        #expect(failed?["code"] == -32070, "\(failed ?? .null)")
        #expect(failed?["data"]?["reason"] == "protocol", "\(failed ?? .null)")
        #expect(failed?["data"]?["detail"]?.stringValue?.contains("closed it") == true, "\(failed ?? .null)")
        #expect(try PluginBinaryTests.call(host, 3, "liar.ok")["result"] == ["content": [["type": "text", "text": "ok"]]])
    }
}
