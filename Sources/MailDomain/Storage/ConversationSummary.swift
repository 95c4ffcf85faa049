/// Builds a folder's view of a conversation from its messages in that folder: both services use it,
/// the in-memory one on every listing, the SQLite one whenever a write touches the conversation.
struct ConversationSummary: Sendable, Equatable {
    var conversation: Conversation
    /// The latest message's time: the listing's sort key.
    var latestTime: Int64

    /// - Precondition: `records` is not empty and all belong to `threadId` in one folder of `account`.
    static func make(threadId: String, account: String, records: [MailRecord]) -> ConversationSummary {
        let ordered = records.sorted(by: MailRecord.chronological)
        let oldest = ordered.first!, latest = ordered.last!
        var seen = Set<String>()
        var participants: [String] = []
        for record in ordered {
            for address in [record.from] + record.to + record.cc where seen.insert(address).inserted {
                participants.append(address)
            }
        }
        let others = participants.filter { $0 != account }
        let conversation = Conversation(
            threadId: threadId,
            subject: Subject.base(oldest.subject),
            participants: Array((others.isEmpty ? participants : others).prefix(Conversation.maximumParticipants)),
            messageCount: ordered.count,
            unreadCount: ordered.filter { !$0.read }.count,
            latest: LatestMessage(uid: latest.uid, from: latest.from, snippet: Snippet.make(latest.text),
                                  date: latest.message.date)
        )
        return ConversationSummary(conversation: conversation, latestTime: latest.time)
    }

    /// The listing rows of a conversation whose messages are all given (`thread`, one account's):
    /// one per folder it has messages in.
    static func listing(of thread: [MailRecord]) -> [(group: GroupKey, summary: ConversationSummary)] {
        Dictionary(grouping: thread) { GroupKey(account: $0.account, folder: $0.folder, threadId: $0.threadId) }
            .map { group, records in (group, make(threadId: group.threadId, account: group.account, records: records)) }
    }
}

/// Subjects without the reply and forward prefixes mail clients add.
enum Subject {
    private static let prefixes = ["re:", "fwd:", "fw:", "aw:"]

    /// `Re: Fwd: Lunch` → `Lunch`; a subject that is nothing but prefixes stays as it was.
    static func base(_ subject: String) -> String {
        var rest = Substring(subject.trimmingASCIISpaces())
        var stripped = true
        while stripped {
            stripped = false
            for prefix in prefixes where rest.lowercased().hasPrefix(prefix) {
                rest = rest.dropFirst(prefix.count).drop { $0 == " " }
                stripped = true
            }
        }
        return rest.isEmpty ? subject.trimmingASCIISpaces() : String(rest)
    }

    /// The subject of a reply to `subject`.
    static func reply(to subject: String) -> String {
        subject.lowercased().hasPrefix("re:") ? subject : "Re: " + subject
    }
}

/// The listing's preview of a text.
enum Snippet {
    static let length = 120

    /// The first ``length`` characters with runs of whitespace collapsed to one space; a longer
    /// text is cut to `length - 1` characters and `…`.
    static func make(_ text: String) -> String {
        var collapsed: [Character] = []
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !collapsed.isEmpty
                continue
            }
            if pendingSpace {
                collapsed.append(" ")
                pendingSpace = false
            }
            collapsed.append(character)
            if collapsed.count > length { break }
        }
        guard collapsed.count > length else { return String(collapsed) }
        var cut = collapsed.prefix(length - 1)
        while cut.last == " " { cut.removeLast() }
        return String(cut) + "…"
    }
}
