@testable import ChatDomain
import Jansson
import Testing

/// The chat values that build their jansson object themselves (``JanssonEncodable``) write what their
/// `Encodable` conformance writes, which every other encoder and the schemas go by.
@Suite("Chat values built directly")
struct ChatEncodingTests {
    /// The text the direct path writes, and the text through the general `Encoder` (a `userInfo`
    /// entry turns the direct path off).
    static func bothWays(_ value: some Encodable) throws -> (direct: String, viaEncoder: String) {
        var general = JanssonEncoder()
        general.userInfo[CodingUserInfoKey(rawValue: "general")!] = true
        let direct = try JanssonEncoder().encode(value), generic = try general.encode(value)
        return withExtendedLifetime((direct, generic)) {
            (JSONWriter.string(of: direct.view), JSONWriter.string(of: generic.view))
        }
    }

    static let sent = ChatMessage(id: "msg-7", roomId: "grp-team", senderId: "u0", text: "nul\u{0}😀 \"q\"",
                                  clientMessageId: "c-1", sentAt: "2026-01-02T03:04:05.006Z", state: .sent)

    static var messages: [ChatMessage] {
        var duplicate = sent
        duplicate.duplicate = true
        return [sent, duplicate, .pending(roomId: "dm-u0-u1", senderId: "u0", text: "", clientMessageId: "c-2"),
                ChatMessage(id: "msg-1", roomId: "r", senderId: "u1", text: "demo", clientMessageId: nil, sentAt: "x", state: .sent)]
    }

    @Test("a message, sent, duplicate, pending or without a client id")
    func messages() throws {
        for message in Self.messages {
            let text = try Self.bothWays(message)
            #expect(text.direct == text.viaEncoder)
        }
        #expect(try Self.bothWays(Self.messages[1]).direct.hasSuffix(#""state":"sent","duplicate":true}"#))
        #expect(try Self.bothWays(Self.messages[2]).direct.hasPrefix(#"{"id":null,"#))
    }

    @Test("chat.send's answer and chat.messageState, sent, duplicate and failed")
    func answerAndState() throws {
        for message in Self.messages {
            let answer = try Self.bothWays(ChatSend.Result(message: message, state: "chat-1a"))
            #expect(answer.direct == answer.viaEncoder)
        }
        let params = ChatSend.Params(roomId: "grp-team", text: "t", clientMessageId: "c-9")
        let states = [ChatMessageState(sent: Self.sent, clientMessageId: "c-1"),
                      ChatMessageState(failed: params, reason: "room grp-team not found", debugId: nil),
                      ChatMessageState(failed: params, reason: "service failure", debugId: "d-1"),
                      ChatMessageState(sent: Self.messages[1], clientMessageId: "c-1")]
        for state in states {
            let text = try Self.bothWays(state)
            #expect(text.direct == text.viaEncoder)
        }
        #expect(try Self.bothWays(states[2]).direct
            == #"{"roomId":"grp-team","clientMessageId":"c-9","state":"failed","reason":"service failure","debugId":"d-1"}"#)
        // A send another process stored first says so (the direct path left it out).
        #expect(try Self.bothWays(states[3]).direct.hasSuffix(#""state":"sent","sentAt":"2026-01-02T03:04:05.006Z","duplicate":true}"#))
    }
}
