import Jansson
import Testing

/// A plugin the host will not run keeps its namespace when only its configuration was refused: calls
/// into it answer the documented `-32070` with `reason: "invalid"`, never "method not found".
@Suite("Invalid plugins (binary)", .serialized, .offCooperativePool)
struct PluginInvalidBinaryTests {
    @Test("A plugin whose --plugin-sandbox file holds no sandbox is invalid: its calls answer -32070 reason invalid, not -32601")
    func invalidSandboxAnswersInvalid() throws {
        let folder = try BinaryHarness.temporaryFolder("invalid-sandbox")
        let file = folder + "/sandbox.json"
        try PluginShippedTests.write(#""not a sandbox""#, to: file, mode: 0o600)
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginAnswerBinaryTests.liars, "--backend", "memory",
                                               "--plugin-sandbox", "liar=" + file])
        let items = try PluginBinaryTests.call(host, 1, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(items.first?["state"] == "invalid", "\(items)")
        let error = try PluginBinaryTests.call(host, 2, "liar.ok")["error"]
        #expect(error?["code"] == -32070, "\(error ?? .null)")
        #expect(error?["data"]?["plugin"] == "liar" && error?["data"]?["reason"] == "invalid", "\(error ?? .null)")
        #expect(error?["message"]?.stringValue?.contains("--plugin-sandbox") == true)
        // A namespace no plugin has is still unknown.
        #expect(try PluginBinaryTests.call(host, 3, "nobody.ok")["error"]?["code"] == -32601)
    }
}
