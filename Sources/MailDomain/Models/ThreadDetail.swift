/// One page of a conversation for the thread view: its messages in every folder, oldest first.
public struct ThreadDetail: Codable, Sendable, Equatable {
    public var threadId: String
    /// The root message's subject.
    public var subject: String
    public var messages: [Message]
    /// Where the next page starts; nil on the last.
    public var nextCursor: String?

    public init(threadId: String, subject: String, messages: [Message], nextCursor: String? = nil) {
        self.threadId = threadId
        self.subject = subject
        self.messages = messages
        self.nextCursor = nextCursor
    }
}
