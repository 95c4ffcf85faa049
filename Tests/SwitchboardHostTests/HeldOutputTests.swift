import Jansson
import JSONRPC
import Testing

/// What the host sends before the client's first bytes show the framing is held until they do, then
/// framed like the stream, in order: an LSP-framed client never receives an NDJSON line.
@Suite("Output held until the framing is known")
struct HeldOutputTests {
    static let ping = #"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#

    @Test("a notification sent before the first bytes goes out LSP-framed, ahead of the first answer, to an LSP client")
    func heldForLSP() async throws {
        let host = try Harness(framing: nil)
        host.connection.notify(method: "test/early", params: ["n": 1])
        host.connection.notify(method: "test/early", params: ["n": 2])
        #expect(host.sink.bytes.isEmpty, "nothing is written before the framing is known")
        try await host.send(bytes: BinaryHarness.frame(Self.ping, .lsp))
        _ = try await host.reply(to: 1)
        #expect(host.outputText.hasPrefix("Content-Length: "), "\(host.outputText)")
        let frames = host.writtenFrames
        #expect(frames.map(\.method) == ["test/early", "test/early", nil])
        #expect(frames.prefix(2).map { $0.json["params"]?["n"] } == [1, 2])
        #expect(frames.allSatisfy { $0.value != nil }, "every frame parses: \(host.outputText)")
    }

    @Test("the same notification goes out as an NDJSON line to an NDJSON client")
    func heldForNDJSON() async throws {
        let host = try Harness(framing: nil)
        host.connection.notify(method: "test/early", params: nil)
        #expect(host.sink.bytes.isEmpty)
        try await host.send(Self.ping)
        _ = try await host.reply(to: 1)
        #expect(host.outputText.hasPrefix(#"{"jsonrpc":"2.0","method":"test/early"}"# + "\n"), "\(host.outputText)")
    }

    @Test("with the framing given (--framing), nothing is held")
    func notHeldWhenGiven() async throws {
        let host = try Harness(framing: .lsp)
        host.connection.notify(method: "test/early", params: nil)
        #expect(host.outputText.hasPrefix("Content-Length: "), "sent at once, LSP-framed: \(host.outputText)")
    }

    @Test("a request to the client sent before its first bytes is held, then sent LSP-framed and answered")
    func requestHeld() async throws {
        let host = try Harness(framing: nil)
        let call = Task { try await host.connection.sendRequest(method: "client/hello", params: nil) }
        try await host.send(bytes: BinaryHarness.frame(Self.ping, .lsp))
        let request = try await host.frame(where: "the request to the client") { $0.method == "client/hello" }
        #expect(host.outputText.hasPrefix("Content-Length: "), "\(host.outputText)")
        let id = try #require(request.id)
        try await host.send(bytes: BinaryHarness.frame(#"{"jsonrpc":"2.0","id":\#(id.jsonText()),"result":"hi"}"#, .lsp))
        #expect(try await call.value == "hi")
    }

    @Test("held pushes count against the output bound: past it they are dropped, and the count follows the held ones")
    func heldPushesBounded() async throws {
        let host = try Harness(limits: ConnectionLimits(maxOutputBytes: 2048), framing: nil)
        let total = 100
        for index in 0..<total {
            host.connection.notify(method: "test/early", params: ["n": .integer(Int64(index)), "pad": .string(String(repeating: "x", count: 100))])
        }
        try await host.send(bytes: BinaryHarness.frame(Self.ping, .lsp))
        _ = try await host.reply(to: 1)
        let frames = host.writtenFrames
        let pushed = frames.filter { $0.method == "test/early" }.compactMap { $0.json["params"]?["n"]?.int64Value }
        let notices = frames.filter { $0.method == "$/notificationsDropped" }
        try #require(notices.count == 1, "\(frames)")
        let dropped = try #require(notices[0].json["params"]?["count"]?.int64Value)
        #expect(pushed == (0..<Int64(pushed.count)).map { $0 }, "the first ones are kept, in order")
        #expect(Int64(pushed.count) + dropped == Int64(total))
        #expect(pushed.count * 130 <= 2048 + 130, "held no more than the bound")
        let noticeIndex = try #require(frames.firstIndex { $0.method == "$/notificationsDropped" })
        let lastPush = try #require(frames.lastIndex { $0.method == "test/early" })
        #expect(noticeIndex > lastPush, "the count follows the held pushes")
    }

    @Test("at end of input with no framing ever shown, held messages go out as NDJSON")
    func releasedAtEndOfInput() async throws {
        let host = try Harness(framing: nil)
        host.connection.notify(method: "test/early", params: nil)
        try await host.finishInput()
        #expect(host.outputText == #"{"jsonrpc":"2.0","method":"test/early"}"# + "\n")
    }
}
