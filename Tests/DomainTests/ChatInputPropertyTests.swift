@testable import ChatDomain
import Jansson
import JSONRPC
import Logging
import PropertyBased
import SwitchboardCore
import SwitchboardHost
import Testing

/// Chat's parsers of client input on any text: history cursors, message ids, `chat.send`'s members.
/// Each either reads the value or answers the documented error naming the member; nothing traps.
@Suite("Chat input, any text", .timeLimit(.minutes(10)))
struct ChatInputPropertyTests {
    static let pieces = ["msg-", "msg-0", "msg-1", "1", "9", "0", "-", "dm-u0-u1", "grp-team", "u0", " ", "\u{0}", "é", "😀",
                         "\u{1F}", "A", "Q", "_", "=", "9223372036854775807", "99999999999999999999"]

    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("a message id reads as a position only when it is exactly msg-N for a positive N")
    func messageIDs() async {
        await propertyCheck(count: 3_000, input: PropertyInputs.text(Self.pieces, count: 0...6)) { text in
            if let position = StoredChatMessage.position(of: text) {
                #expect(position > 0 && text == "msg-\(position)")
            }
        }
    }

    @Test("any history cursor text is a position of this room or -32602 naming cursor")
    func historyCursors() async {
        await propertyCheck(count: 3_000, input: PropertyInputs.text(Self.pieces, count: 0...12)) { text in
            do {
                let position = try ChatRules.historyBefore(text, roomId: "grp-team")
                #expect((position ?? 1) > 0)
            } catch let error as JSONFieldError {
                #expect(error.field == "cursor")
                #expect(error.got.unicodeScalars.count <= 140)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("a crafted cursor with a checksum but a bad position is refused")
    func craftedCursors() async {
        await propertyCheck(count: 1_000, input: PropertyInputs.text(Self.pieces, count: 0...4), PropertyInputs.text(Self.pieces, count: 0...4)) { key, id in
            let text = Cursor(list: ChatRules.historyList("grp-team"), sortKey: key, id: id).encoded
            if let position = try? ChatRules.historyBefore(text, roomId: "grp-team") {
                #expect(key == String(position) && id == "msg-\(position)")
            }
        }
    }

    @Test("chat.send with any room, text and client id answers pending, a duplicate, or the error naming the member",
          arguments: ChatServiceTests.Backend.available)
    func sendMembers(backend: ChatServiceTests.Backend) async throws {
        try await ChatServiceTests.withChat(backend) { chat in try await Self.checkSends(on: chat) }
    }

    /// The property of ``sendMembers(backend:)`` on `chat`.
    static func checkSends(on chat: any ChatService) async throws {
        let dispatcher = try MethodRegistry.chatMethods(chat).freeze()
        await propertyCheck(count: 300, input: PropertyInputs.text(Self.pieces, count: 0...3), PropertyInputs.text(Self.pieces, count: 0...5),
                            PropertyInputs.text(Self.pieces, count: 0...3)) { room, text, clientID in
            let params: JSONValue = ["roomId": .string(room), "text": .string(text), "clientMessageId": .string(clientID)]
            let outcome = await InProcessCall.call("chat.send", params: params, dispatcher: dispatcher, logger: Self.logger)
            DomainSchemas.expectValid(outcome.response, answering: "chat.send")
            if let error = outcome.error {
                let field = error["data"]?["field"]?.stringValue ?? ""
                #expect(["roomId", "text", "clientMessageId"].contains(field), "\(error)")
                if error["code"] == -32004 { #expect(field == "roomId") }
                if field == "text" { #expect(text.isEmpty || text.contains("\u{0}")) }
            } else {
                #expect(room == "dm-u0-u1" || room == "grp-team")
                #expect(!text.isEmpty && !text.contains("\u{0}") && !clientID.isEmpty)
            }
        }
    }
}
