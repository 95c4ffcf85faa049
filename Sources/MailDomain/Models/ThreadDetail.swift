/// A whole conversation for the thread view: every message, in every folder, oldest first.
public struct ThreadDetail: Codable, Sendable, Equatable {
    public var threadId: String
    /// The root message's subject.
    public var subject: String
    public var messages: [Message]

    public init(threadId: String, subject: String, messages: [Message]) {
        self.threadId = threadId
        self.subject = subject
        self.messages = messages
    }
}
