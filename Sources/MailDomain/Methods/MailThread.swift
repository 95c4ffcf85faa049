import DomainMethods
import JSONRPC
import SwitchboardCore

/// `mail.thread {threadId, limit?, cursor?}` → `{threadId, subject, messages, state, nextCursor}`: a
/// conversation in every folder, oldest first, with full text, a page at a time: at most `limit`
/// messages (50 by default, up to 500) and about 4 MB of text (``ThreadPage``), but always one.
public enum MailThread: RPCMethod {
    public static let name = "mail.thread"
    public static let summary = "Reads a conversation, oldest message first, with full text, a page at a time."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var threadId: String
        public var page: PageRequest

        enum CodingKeys: String, CodingKey { case threadId }

        public init(from decoder: any Decoder) throws {
            threadId = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .threadId)
            page = try PageRequest(from: decoder)
        }
    }

    public struct Result: Encodable, Sendable {
        public var threadId: String
        public var subject: String
        public var messages: [Message]
        public var state: String
        /// Where the next page starts; `null` on the last (as the other lists answer), not absent.
        public var nextCursor: String?

        enum CodingKeys: String, CodingKey { case threadId, subject, messages, state, nextCursor }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(threadId, forKey: .threadId)
            try container.encode(subject, forKey: .subject)
            try container.encode(messages, forKey: .messages)
            try container.encode(state, forKey: .state)
            try container.encode(nextCursor, forKey: .nextCursor)
        }
    }

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        try TextLimit.check(params.threadId, field: "threadId", maximum: TextLimit.id)
        let state = try await mail.state()
        guard let thread = try await mail.thread(account: account, threadId: params.threadId, page: params.page) else {
            throw ResponseError.notFound("thread \(params.threadId)", field: "threadId", got: params.threadId)
        }
        return Result(threadId: thread.threadId, subject: thread.subject, messages: thread.messages, state: state,
                      nextCursor: thread.nextCursor)
    }
}
