#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// The network proxy of a plugin with `network.allow` (issue 24, point 3) takes bounded resources from the
/// host: past its connection bound a plugin's connections are refused with a logged line, and an upstream that
/// never accepts gets the plugin a clear error after the connect timeout. Also: a restarted confined plugin
/// enters the namespaces its first run made (point 9), still confined.
@Suite("Plugin sandbox: proxy bounds and kept namespaces (binary)", .serialized, .offCooperativePool)
struct PluginSandboxProxyBinaryTests {
    typealias H = BinaryHarness
    typealias Sandbox = PluginSandboxBinaryTests

    /// A host whose jail may reach only `127.0.0.1:port`, through the proxy; nil where the kernel gives no
    /// network namespace (the proxy is not used there).
    static func proxiedHost(_ home: Sandbox.Home, port: Int, environment: [String: String?] = [:]) throws -> SpawnedHost? {
        let file = home.path + "/jail-sandbox.json"
        try PluginShippedTests.write(#"{"network": {"allow": ["127.0.0.1:\#(port)"]}}"#, to: file, mode: 0o600)
        let host = try Sandbox.host(home, ["--plugin-sandbox", "jail=\(file)"], environment: environment)
        guard try Sandbox.call(host, 1, "host.status")["result"]?["sandbox"]?["networkNamespaces"] == true else { return nil }
        return host
    }

    @Test("A plugin opening more proxy connections than the bound (32) gets 503 past it, with one logged line; the host keeps answering")
    func proxyConnectionsAreBounded() throws {
        let home = try Sandbox.Home()
        let listener = try Sandbox.Listener(backlog: 64)
        guard let host = try Self.proxiedHost(home, port: listener.port) else { return }
        // 40 connections at once, each asking for the allowed listener: 32 are tunnelled (the listener's backlog
        // completes them), 8 are refused by the proxy.
        let flood = try Sandbox.jail(host, 2, "flood", #"{"count":40,"target":"127.0.0.1:\#(listener.port)"}"#)
        #expect(flood["statuses"] == ["200": 32, "503": 8], "\(flood)")
        #expect(flood["refusal"]?.stringValue?.contains("too many connections through the proxy (at most 32 at once)") == true, "\(flood)")
        #expect(try Sandbox.call(host, 3, "host.ping")["result"] == "pong")
        host.closeInput()
        _ = try host.waitForExit()
        let line = "plugin jail: network connection refused: 32 proxy connections open, the most a plugin may have"
        #expect(host.stderrText.split(separator: "\n").filter { $0.contains(line) }.count == 1, "one line per burst: \(host.stderrText)")
    }

    @Test("An upstream that never accepts (a full backlog) gets the plugin a 504 naming it after the connect timeout; the host keeps answering")
    func upstreamConnectTimesOut() throws {
        let home = try Sandbox.Home()
        // Backlog 0 holds one connection; with it queued, the listener drops further SYNs: connects hang.
        let listener = try Sandbox.Listener(backlog: 0)
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(filler) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(listener.port).bigEndian
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var queued = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
        try #require(poll(&queued, 1, Int32(H.answerTimeout)) == 1, "the filler connection did not reach the backlog")

        guard let host = try Self.proxiedHost(home, port: listener.port, environment: ["SWITCHBOARD_TEST_PROXY_CONNECT_MS": "300"]) else { return }
        try host.send(H.request(2, "jail.fetch", #"{"url":"http://127.0.0.1:\#(listener.port)/slow"}"#))
        // While the proxy waits for the upstream, the host answers (the fetch's answer may come first on a slow machine).
        try host.send(H.request(3, "host.ping"))
        let (pong, before) = try host.response(to: 3)
        #expect(pong["result"] == "pong")
        let answer = try before.first { $0["id"] == 2 } ?? host.response(to: 2).response
        let fetched = try #require(answer["result"], "\(answer)")
        #expect(fetched["ok"] == false && fetched["error"] == "HTTP 504", "\(fetched)")
        #expect(fetched["text"]?.stringValue?.contains("connecting to 127.0.0.1:\(listener.port) timed out after 300 ms") == true, "\(fetched)")
        host.closeInput()
        _ = try host.waitForExit()
        #expect(host.stderrText.contains("plugin jail: network: connecting to 127.0.0.1:\(listener.port) timed out"), "\(host.stderrText)")
    }

    @Test("A restarted confined plugin runs in the namespaces its first run made (not the host's), and is as confined")
    func restartKeepsNamespaces() throws {
        let home = try Sandbox.Home()
        let listener = try Sandbox.Listener()
        let host = try Sandbox.host(home)
        let first = try Sandbox.jail(host, 1, "env")["namespaces"]
        guard try Sandbox.item(host, 2, "jail")["sandbox"]?["networkEnforcement"] == "namespace" else { return }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/net", &buffer, buffer.count - 1)
        let hostNetwork = String(decoding: buffer.prefix(max(0, count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(first?["net"] != nil && first?["net"] != .string(hostNetwork), "\(String(describing: first))")
        let firstPid = try Sandbox.item(host, 3, "jail")["pid"]

        #expect(try Sandbox.call(host, 4, "plugins.restart", #"{"name":"jail"}"#)["result"] != nil)
        #expect(try Sandbox.item(host, 5, "jail")["pid"] != firstPid)
        let second = try Sandbox.jail(host, 6, "env")["namespaces"]
        #expect(second == first, "first \(String(describing: first)), after the restart \(String(describing: second))")
        // Still confined: no way to the test's listener, no secret.
        #expect(try Sandbox.jail(host, 7, "connect", #"{"host":"127.0.0.1","port":\#(listener.port)}"#)["ok"] == false)
        #expect(!listener.acceptArrived(), "the restarted plugin reached the test's listener")
        #expect(try Sandbox.jail(host, 8, "read", #"{"path":\#(Sandbox.json(home.secret))}"#)["error"] == "EACCES")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
