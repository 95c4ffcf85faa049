import DomainMethods
import JSONRPC
import SwitchboardCore

/// `mail.thread {threadId}` → `{threadId, subject, messages, state}`: a whole conversation, every
/// folder, oldest first, with full text.
public enum MailThread: RPCMethod {
    public static let name = "mail.thread"
    public static let summary = "Reads a whole conversation, oldest message first, with full text."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var threadId: String
    }

    public struct Result: Encodable, Sendable {
        public var threadId: String
        public var subject: String
        public var messages: [Message]
        public var state: String
    }

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        try TextLimit.check(params.threadId, field: "threadId", maximum: TextLimit.id)
        let state = try await mail.state()
        guard let thread = try await mail.thread(account: account, threadId: params.threadId) else {
            throw ResponseError.notFound("thread \(params.threadId)", field: "threadId", got: params.threadId)
        }
        return Result(threadId: thread.threadId, subject: thread.subject, messages: thread.messages, state: state)
    }
}
