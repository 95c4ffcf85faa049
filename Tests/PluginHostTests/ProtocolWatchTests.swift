import Jansson
import JSONRPC
@testable import PluginHost
import Testing

@Suite("Protocol violations seen in the reader's replies")
struct ProtocolWatchTests {
    @Test("a parse error or an invalid request the reader answers is the plugin's violation; other answers are not")
    func findsViolations() {
        let parse = Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: parse) == "Parse error: x")
        let batch = Array(#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too big"}}]"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: batch) == "too big")
        let fine = Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: fine) == nil)
    }
}
