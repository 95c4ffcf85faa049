/// One result of `mail.search`: the message without its full text, a snippet, and its score.
public struct SearchHit: Codable, Sendable, Equatable {
    public var uid: String
    public var threadId: String
    public var folder: Folder
    public var from: String
    public var subject: String
    public var snippet: String
    public var date: String
    public var read: Bool
    /// Higher is better; see ``SearchQuery`` for how it is counted.
    public var score: Int

    public init(uid: String, threadId: String, folder: Folder, from: String, subject: String, snippet: String,
                date: String, read: Bool, score: Int) {
        self.uid = uid
        self.threadId = threadId
        self.folder = folder
        self.from = from
        self.subject = subject
        self.snippet = snippet
        self.date = date
        self.read = read
        self.score = score
    }
}
