import Jansson
import JSONRPC
import SwitchboardHost
import SwitchboardCore
import Testing

// What the host says about itself, in process: initialize (framing, limits, namespaces),
// host.methods and rpc.discover (every registered method).

@Suite("Introspection")
struct IntrospectionTests {
    /// Every method the test harness registers: the host's and the test-only ones.
    static func registeredNames(_ host: Harness) -> [String] { host.connection.dispatcher.entries.map(\.name) }

    @Test("initialize reports server name and version, framing, the connection's limits and the namespaces")
    func initialize() async throws {
        let limits = ConnectionLimits(maxMessageBytes: 12345, maxBatchLength: 17, maxNestingDepth: 33, maxInFlight: 5, maxOutputBytes: 999)
        let host = try Harness(limits: limits)
        let reply = try await host.call("initialize", params: ["processId": nil, "clientInfo": ["name": "tests"]], id: 1)
        expectEnvelope(reply.json)
        let result = try #require(reply.result)
        #expect(result["serverInfo"]?["name"] == "switchboard")
        #expect(result["serverInfo"]?["version"]?.stringValue?.isEmpty == false)
        let capabilities = try #require(result["capabilities"])
        #expect(capabilities["framing"] == "ndjson")
        #expect(capabilities["limits"] == ["maxMessageBytes": 12345, "maxBatchLength": 17, "maxNestingDepth": 33, "maxInFlight": 5, "maxOutputBytes": 999,
                                           "maxValues": 1_048_576])
        let namespaceValues = try #require(capabilities["namespaces"]?.arrayValue)
        let namespaces = namespaceValues.compactMap { $0.stringValue }
        for expected in ["host", "rpc", "test"] { #expect(namespaces.contains(expected), "namespaces: \(namespaces)") }
        #expect(namespaces == namespaces.sorted())
        #expect(Set(namespaces).count == namespaces.count)
        #expect(result["protocolVersion"] == nil, "no protocolVersion unless the client sent one")
    }

    @Test("initialize reports the default limits and echoes an MCP protocolVersion")
    func initializeDefaults() async throws {
        let host = try Harness()
        let reply = try await host.call("initialize", params: ["protocolVersion": "2025-06-18"], id: 1)
        #expect(reply.result?["protocolVersion"] == "2025-06-18")
        #expect(reply.result?["capabilities"]?["limits"] == [
            "maxMessageBytes": .integer(16 << 20), "maxBatchLength": 1000, "maxNestingDepth": 128, "maxInFlight": 64, "maxOutputBytes": .integer(4 << 20), "maxValues": 1_048_576,
        ])
    }

    @Test("initialize in LSP framing reports lsp; initialized notifications are not answered")
    func initializeLSP() async throws {
        let host = try Harness(framing: nil)
        let body = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        let note = #"{"jsonrpc":"2.0","method":"initialized","params":{}}"#
        let mcpNote = #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        let ping = #"{"jsonrpc":"2.0","id":2,"method":"host.ping"}"#
        try await host.send(raw: [body, note, mcpNote, ping].map { "Content-Length: \($0.utf8.count)\r\n\r\n\($0)" }.joined())
        #expect(try await host.reply(to: 1).result?["capabilities"]?["framing"] == "lsp")
        _ = try await host.reply(to: 2)
        #expect(host.writtenFrames.count == 2)
    }

    @Test("host.methods lists every registered method once, sorted, with its summary and kind")
    func hostMethods() async throws {
        let host = try Harness()
        let reply = try await host.call("host.methods", id: 1)
        let methods = try #require(reply.result?.arrayValue)
        let names = methods.compactMap { $0["name"]?.stringValue }
        #expect(names == Self.registeredNames(host))
        #expect(names == names.sorted())
        for name in TestMethods.names + ["host.ping", "host.echo", "host.methods", "host.status", "host.sleep", "rpc.discover"] {
            #expect(names.contains(name), "missing \(name)")
        }
        for method in methods {
            #expect(method.objectValue?.keys.sorted() == ["kind", "name", "summary"])
            #expect(method["summary"]?.stringValue?.isEmpty == false)
            let entry = host.connection.dispatcher.entry(named: method["name"]?.stringValue ?? "")
            #expect(method["kind"]?.stringValue == entry?.kind.rawValue)
            #expect(method["summary"]?.stringValue == entry?.summary)
        }
        #expect(methods.first { $0["name"] == "test.note" }?["kind"] == "notification")
        #expect(methods.first { $0["name"] == "test.block" }?["kind"] == "request")
    }

    @Test("rpc.discover is an OpenRPC 1.3 document listing every registered method")
    func discover() async throws {
        let host = try Harness()
        let reply = try await host.call("rpc.discover", id: 1)
        expectEnvelope(reply.json)
        let document = try #require(reply.result)
        let version = try #require(document["openrpc"]?.stringValue)
        #expect(version.hasPrefix("1.3."), "openrpc \(version)")
        #expect(document["info"]?["title"]?.stringValue?.isEmpty == false)
        #expect(document["info"]?["version"]?.stringValue?.isEmpty == false)
        let methods = try #require(document["methods"]?.arrayValue)
        let names = methods.compactMap { $0["name"]?.stringValue }
        #expect(names.sorted() == Self.registeredNames(host).sorted())
        #expect(Set(names).count == names.count, "each method once")
        for method in methods {
            let name = method["name"]?.stringValue ?? "?"
            let entry = try #require(host.connection.dispatcher.entry(named: name))
            let params = try #require(method["params"]?.arrayValue, "\(name) has a params array")
            for param in params {
                #expect(param["name"]?.stringValue?.isEmpty == false, "\(name): a param without a name")
                #expect(param["schema"] != nil, "\(name): a param without a schema")
            }
            if entry.kind == .request {
                let result = try #require(method["result"], "\(name) is a request: it needs a result")
                #expect(result["name"]?.stringValue?.isEmpty == false, "\(name): the result needs a name")
                #expect(result["schema"] != nil, "\(name): the result needs a schema")
            } else {
                #expect(method["result"] == nil, "\(name) is a notification: OpenRPC 1.3 says no result")
            }
        }
    }

    @Test("rpc.discover describes host.ping's result and host.sleep's params from the schema files")
    func discoverSchemas() async throws {
        let host = try Harness()
        let reply = try await host.call("rpc.discover", id: 1)
        let methods = try #require(reply.result?["methods"]?.arrayValue)
        let ping = try #require(methods.first { $0["name"] == "host.ping" })
        #expect(ping["result"]?["schema"] == ["const": "pong"])
        let sleep = try #require(methods.first { $0["name"] == "host.sleep" })
        let params = sleep["params"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(params.contains("ms") && params.contains("steps"), "host.sleep's params in rpc.discover: \(sleep.jsonText())")
    }

    @Test("host.status reports the framing and shutdown state, and whether plugins can be confined here")
    func status() async throws {
        let host = try Harness()
        let status = try await host.call("host.status", id: 1).result
        #expect(status?["inFlight"] == 0 && status?["framing"] == "ndjson" && status?["shuttingDown"] == false)
        let sandbox = try #require(status?["sandbox"])
        #expect(sandbox["available"] == .bool(ConfinementSupport.landlockABI != nil) && sandbox["kernel"] == .string(ConfinementSupport.kernelRelease))
        _ = try await host.call("shutdown", id: 2)
        #expect(host.connection.isShuttingDown)
    }
}
