/// What a write does to one conversation's listing row in one folder, the same on every SQL backend:
/// rebuilt from the messages now there (or dropped when none is left), and the folder's counts moved by
/// the difference from the row it replaces.
struct ConversationRefresh: Sendable {
    var group: GroupKey
    /// The new listing row; `nil` when the conversation has no message left in the folder.
    var summary: ConversationSummary?
    /// What to add to the folder's total and unread counts.
    var total: Int
    var unread: Int

    /// - Parameters:
    ///   - old: the message and unread counts of the row being replaced, `nil` when there is none.
    ///   - records: the conversation's messages in the folder now.
    init(_ group: GroupKey, old: (total: Int, unread: Int)?, records: [MailRecord]) {
        self.group = group
        summary = records.isEmpty ? nil : ConversationSummary.make(threadId: group.threadId, account: group.account, records: records)
        total = (summary?.conversation.messageCount ?? 0) - (old?.total ?? 0)
        unread = (summary?.conversation.unreadCount ?? 0) - (old?.unread ?? 0)
    }

    /// Whether the folder's counts change.
    var movesCounts: Bool { total != 0 || unread != 0 }
}
