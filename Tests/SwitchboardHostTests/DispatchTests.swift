import Jansson
import JSONRPC
import SwitchboardHost
import Testing

// Dispatch (issue point 5): one registry, frozen; -32601 naming the method; -32602 naming the field;
// unexpected errors as -32603; and the LSP-style lifecycle (shutdown, exit).

@Suite("Dispatch: method lookup and params")
struct DispatchTests {
    @Test("-32601 names the unknown method in error.data", arguments: ["foobar", "host.pong", "HOST.PING", "", "rpc.nothing"])
    func methodNotFound(name: String) async throws {
        let host = try Harness()
        let reply = try await host.call(name, id: 1)
        let error = expectError(reply, id: 1, code: -32601)
        #expect(error["data"] == ["method": .string(name)])
    }

    @Test("-32602 for host.sleep {\"ms\":\"ten\"} names the field, what was expected and what came")
    func wrongType() async throws {
        let host = try Harness()
        let reply = try await host.call("host.sleep", params: ["ms": "ten"], id: 1)
        let error = expectError(reply, id: 1, code: -32602)
        #expect(error["data"] == ["field": "ms", "expected": "integer", "got": "\"ten\""])
        #expect(error["message"]?.stringValue?.contains("ms") == true)
    }

    @Test("-32602 for a missing member says it got nothing")
    func missingMember() async throws {
        let host = try Harness()
        let error = expectError(try await host.call("host.sleep", params: [:], id: 1), id: 1, code: -32602)
        #expect(error["data"] == ["field": "ms", "expected": "integer", "got": "nothing"])
    }

    @Test("-32602 for out-of-range values names the field and the range",
          arguments: [
            (#"{"ms":-1}"#, "ms", "integer 0...600000", "-1"),
            (#"{"ms":600001}"#, "ms", "integer 0...600000", "600001"),
            (#"{"ms":10,"steps":0}"#, "steps", "integer 1...10000", "0"),
            (#"{"ms":10,"steps":10001}"#, "steps", "integer 1...10000", "10001"),
          ])
    func outOfRange(params: String, field: String, expected: String, got: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":"r","method":"host.sleep","params":\#(params)}"#)
        let error = expectError(try await host.reply(to: "r"), id: "r", code: -32602)
        #expect(error["data"] == ["field": .string(field), "expected": .string(expected), "got": .string(got)])
    }

    @Test("-32602 for positional params to a method that takes named ones")
    func positionalToNamed() async throws {
        let host = try Harness()
        let error = expectError(try await host.call("host.sleep", params: [10], id: 1), id: 1, code: -32602)
        #expect(error["data"]?["field"] == "")
        #expect(error["data"]?["got"] == "[10]")
    }

    @Test("-32602 for positional params to a method that takes none; [] {} and absent params are fine")
    func paramsForParameterlessMethod() async throws {
        let host = try Harness()
        expectError(try await host.call("host.ping", params: [1], id: 1), id: 1, code: -32602)
        expectResult(try await host.call("host.ping", params: [], id: 2), id: 2, "pong")
        expectResult(try await host.call("host.ping", params: [:], id: 3), id: 3, "pong")
        expectResult(try await host.call("host.ping", id: 4), id: 4, "pong")
        expectResult(try await host.call("host.ping", params: ["_meta": ["progressToken": 1]], id: 5), id: 5, "pong")
    }

    @Test("host.echo answers null when called without params")
    func echoWithoutParams() async throws {
        let host = try Harness()
        expectResult(try await host.call("host.echo", id: 1), id: 1, nil)
    }

    @Test("a task-run handler that throws an unexpected error answers -32603, and the connection keeps working")
    func unexpectedErrorInTask() async throws {
        let host = try Harness()
        let error = expectError(try await host.call("test.boom", id: 1), id: 1, code: -32603)
        #expect(error["message"]?.stringValue?.contains("the disk caught fire") == true)
        #expect(error["data"] == ["type": "UnexpectedFailure"])
        expectResult(try await host.call("host.ping", id: 2), id: 2, "pong")
        expectResult(try await host.call("test.fast", id: 3), id: 3, "fast")
    }

    @Test("an immediate handler that throws an unexpected error answers -32603, and the connection keeps working")
    func unexpectedErrorImmediate() async throws {
        let host = try Harness()
        let error = expectError(try await host.call("test.boomNow", id: 1), id: 1, code: -32603)
        #expect(error["data"] == ["type": "UnexpectedFailure"])
        expectResult(try await host.call("host.ping", id: 2), id: 2, "pong")
    }

    @Test("a method added as a dynamic entry is dispatched like the others")
    func dynamicEntry() async throws {
        let host = try Harness { registry in
            registry.add(MethodEntry.dynamic(name: "plugin.double", summary: "Doubles n.") { params, _ in
                .integer((params?["n"]?.int64Value ?? 0) * 2)
            })
        }
        expectResult(try await host.call("plugin.double", params: ["n": 21], id: 1), id: 1, 42)
    }
}

@Suite("Dispatch: the registry")
struct RegistryTests {
    enum Twin: RPCMethod {
        static let name = "test.twin"
        static let summary = "Registered twice."
        typealias Result = String
    }

    @Test("registering two methods with one name fails to freeze with RegistryError")
    func duplicate() {
        var registry = MethodRegistry()
        registry.register(Twin.self) { _, _ in "a" }
        registry.registerImmediate(Twin.self) { _, _ in "b" }
        #expect(throws: RegistryError.duplicateMethod("test.twin")) { try registry.freeze() }
    }

    @Test("a domain method clashing with a host method fails to freeze")
    func clashWithHost() {
        var registry = MethodRegistry.hostMethods()
        var group = MethodRegistry()
        group.add(MethodEntry.dynamic(name: "host.ping", summary: "Another ping.") { _, _ in "ping" })
        registry.add(group)
        #expect(throws: RegistryError.duplicateMethod("host.ping")) { try registry.freeze() }
    }

    @Test("the host's built-ins freeze on their own, with namespace.verb names or lifecycle names")
    func hostMethodsFreeze() throws {
        let dispatcher = try MethodRegistry.hostMethods().freeze()
        let names = dispatcher.entries.map(\.name)
        for name in ["host.ping", "host.echo", "host.methods", "host.status", "host.sleep", "rpc.discover",
                     "initialize", "initialized", "notifications/initialized", "shutdown", "exit"] {
            #expect(names.contains(name), "missing \(name)")
        }
        #expect(names == names.sorted())
        #expect(dispatcher.entry(named: "host.sleep")?.isImmediate == false)
        #expect(dispatcher.entry(named: "host.ping")?.isImmediate == true)
        #expect(dispatcher.entry(named: "exit")?.kind == .notification)
    }

    @Test("an empty method name is refused")
    func emptyName() {
        var registry = MethodRegistry()
        registry.add(MethodEntry.dynamic(name: "", summary: "Nameless.") { _, _ in nil })
        #expect(throws: RegistryError.invalidName("")) { try registry.freeze() }
    }
}

@Suite("Dispatch: lifecycle")
struct LifecycleTests {
    @Test("after shutdown, requests are refused with -32600 and their id; notifications are neither answered nor run")
    func shutdownRefuses() async throws {
        let host = try Harness()
        expectResult(try await host.call("shutdown", id: 1), id: 1, nil)
        #expect(host.connection.isShuttingDown)
        let refused = expectError(try await host.call("host.ping", id: 2), id: 2, code: -32600)
        #expect(refused["message"]?.stringValue?.contains("shut") == true)
        expectError(try await host.call("test.fast", id: 3), id: 3, code: -32600)
        try await host.notify("test.note", params: ["text": "late"])
        expectError(try await host.call("no.such", id: 4), id: 4, code: -32600)
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 4)
        // Not run either (LSP: after shutdown only exit is taken): a write sent as a notification did happen.
        #expect(!host.probe.events.elements.contains("note:late"))
    }

    @Test("exit after shutdown requests exit code 0 and stops reading")
    func exitAfterShutdown() async throws {
        let host = try Harness()
        _ = try await host.call("shutdown", id: 1)
        #expect(host.connection.requestedExitCode == nil)
        try await host.notify("exit")
        #expect(host.connection.requestedExitCode == 0)
        #expect(try await host.isStopped)
        try await host.send(#"{"jsonrpc":"2.0","method":"host.ping","id":2}"#)
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 1, "nothing is answered after exit: \(host.outputText)")
    }

    @Test("exit without shutdown requests exit code 1")
    func exitWithoutShutdown() async throws {
        let host = try Harness()
        try await host.notify("exit")
        #expect(host.connection.requestedExitCode == 1)
        #expect(try await host.isStopped)
        #expect(host.sink.bytes.isEmpty)
    }

    @Test("shutdown lets a request already in flight finish normally")
    func shutdownDrains() async throws {
        let host = try Harness()
        try await host.send(json: request("test.block", params: ["key": "k"], id: 1))
        try await host.probe.waitFor("start:k")
        expectResult(try await host.call("shutdown", id: 2), id: 2, nil)
        host.probe.open("k")
        expectResult(try await host.reply(to: 1), id: 1, "k")
    }

    @Test("no handshake is needed: the first message may be any request")
    func noHandshake() async throws {
        let host = try Harness()
        expectResult(try await host.call("host.echo", params: ["x": 1], id: 1), id: 1, ["x": 1])
    }
}
