import JSONRPC
import MCPServerFace
import PluginHost
import SwitchboardHost
import Testing

/// `NamespacePolicy` (PluginHost) takes the reserved namespaces from what is registered: here with the
/// MCP server face's methods, which live above PluginHost.
@Suite("Namespace reservation")
struct NamespaceReservationTests {
    @Test("The namespaces no plugin may take are those of the methods the host registered, MCP's included")
    func reservesWhatIsRegistered() {
        var registry = MethodRegistry()
        registry.add(.hostMethods())
        registry.add(.mcpServerMethods())
        registry.add(.pluginMethods(.none))
        registry.add(.promptMethods(.none))
        let policy = NamespacePolicy(hostMethods: registry.names)
        // `server/discover` and `subscriptions/listen` (MCP 2026-07-28) are reserved by being registered.
        for namespace in ["host", "rpc", "tools", "resources", "prompts", "plugins", "server", "subscriptions", "ping", "initialize", "sampling"] {
            #expect(policy.refusal(of: namespace) != nil, "\(namespace)")
        }
        #expect(policy.refusal(of: "mail") == nil, "no mail method is registered here")
    }
}
