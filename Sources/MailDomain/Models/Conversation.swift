/// One row of the inbox listing: a conversation as it stands in one folder.
///
/// Counts, participants and the latest message cover the conversation's messages in that folder
/// only (a reply you sent sits in Sent, not in the Inbox row).
public struct Conversation: Codable, Sendable, Equatable {
    public var threadId: String
    /// The subject of the conversation's oldest message in the folder, without `Re:`/`Fwd:` prefixes.
    public var subject: String
    /// The addresses that wrote or were written to, in order of first appearance, the account's own
    /// address left out unless it is the only one: the first ``maximumParticipants``.
    public var participants: [String]
    public var messageCount: Int
    public var unreadCount: Int
    public var latest: LatestMessage

    /// The most participants a conversation lists: a thread of 20,000 senders made a listing row of
    /// 689 kB, and `inbox.list` answers up to 500 rows.
    public static let maximumParticipants = 50

    /// The participants as a store keeps them (one a line), the first ``maximumParticipants`` (rows
    /// an older switchboard stored may hold more).
    static func participants(stored joined: String) -> [String] {
        guard !joined.isEmpty else { return [] }
        return joined.split(separator: "\n", maxSplits: maximumParticipants).prefix(maximumParticipants).map(String.init)
    }

    public init(threadId: String, subject: String, participants: [String], messageCount: Int, unreadCount: Int, latest: LatestMessage) {
        self.threadId = threadId
        self.subject = subject
        self.participants = participants
        self.messageCount = messageCount
        self.unreadCount = unreadCount
        self.latest = latest
    }
}

/// The newest message of a conversation, as the listing shows it.
public struct LatestMessage: Codable, Sendable, Equatable {
    public var uid: String
    public var from: String
    /// The first ~120 characters of the text, whitespace collapsed.
    public var snippet: String
    /// RFC 3339, UTC.
    public var date: String

    public init(uid: String, from: String, snippet: String, date: String) {
        self.uid = uid
        self.from = from
        self.snippet = snippet
        self.date = date
    }
}
