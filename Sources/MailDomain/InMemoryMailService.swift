import Jansson
import Synchronization
import SwitchboardCore

/// Mail held in memory: the demo mailbox (``DemoMail``) at start, then whatever is sent, imported,
/// read or moved, with change tracking in an in-memory log. Deterministic for a given clock.
///
/// Listings are computed from the messages on each call, which suits fixture-sized mailboxes; the
/// answers are the same as ``SQLiteMailService`` gives for the same operations.
public final class InMemoryMailService: MailService {
    private let clock: any WallClock
    private let mailbox: Mutex<InMemoryMailbox>
    private let signal: ChangeSignal

    /// - Parameters:
    ///   - demoMessages: how many demo messages the demo account starts with.
    ///   - retainedChanges: change records kept (see ``InMemoryChangeLog``).
    ///   - signal: posted after each write.
    public init(clock: any WallClock = SystemClock(), demoMessages: Int = DemoMail.defaultCount,
                retainedChanges: Int = ChangeTracking.retainedRecords, signal: ChangeSignal = ChangeSignal()) {
        self.clock = clock
        self.signal = signal
        var mailbox = InMemoryMailbox(log: InMemoryChangeLog(retained: retainedChanges,
                                                             interval: min(ChangeTracking.pruneInterval, retainedChanges)))
        mailbox.accounts[DemoAccount.email] = Account(email: DemoAccount.email, name: DemoAccount.name)
        DemoMail.generate(messages: demoMessages, now: clock.now()) { thread in thread.forEach { mailbox.load($0) } }
        self.mailbox = Mutex(mailbox)
    }

    public func login(email: String) async throws -> LoginOutcome {
        mailbox.withLock { mailbox in
            if let account = mailbox.accounts[email] { return LoginOutcome(account: account, created: false) }
            let account = Account(email: email)
            mailbox.accounts[email] = account
            return LoginOutcome(account: account, created: true)
        }
    }

    public func folders(account: String) async throws -> [FolderSummary] {
        mailbox.withLock { mailbox in
            var summaries = Folder.allCases.map { FolderSummary(name: $0, total: 0, unread: 0) }
            for record in mailbox.records where record.account == account {
                let index = Folder.allCases.firstIndex(of: record.folder)!
                summaries[index].total += 1
                if !record.read { summaries[index].unread += 1 }
            }
            return summaries
        }
    }

    public func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation> {
        try mailbox.withLock { mailbox in
            let list = ConversationOrder.listID(account: account, folder: folder, unreadOnly: unreadOnly)
            let position = try ConversationOrder.position(page.cursor, list: list, current: mailbox.sequence)
            var candidates: [ConversationOrder.Placed] = []
            for (threadId, records) in mailbox.groups(account: account, folder: folder) {
                let summary = ConversationSummary.make(threadId: threadId, account: account, records: records)
                if unreadOnly, summary.conversation.unreadCount == 0 { continue }
                let updated = mailbox.groupUpdated[GroupKey(account: account, folder: folder, threadId: threadId)] ?? 0
                let time: Int64
                if updated <= position.snapshot {
                    time = summary.latestTime
                } else {
                    // Changed since the first page: placed as it stood then, or not at all.
                    guard let then = records.filter({ $0.folderSeq <= position.snapshot }).map(\.time).max() else { continue }
                    time = then
                }
                let key = ConversationOrder.Key(time: time, threadId: threadId)
                if let after = position.after, !(after < key) { continue }
                candidates.append(ConversationOrder.Placed(conversation: summary.conversation, key: key))
            }
            return ConversationOrder.page(candidates, limit: page.limit, list: list, snapshot: position.snapshot)
        }
    }

    public func thread(account: String, threadId: String, page: PageRequest) async throws -> ThreadDetail? {
        let paging = try ThreadPage(account: account, threadId: threadId, page: page)
        return mailbox.withLock { mailbox in
            // A record's position in the mailbox is the order it was stored in.
            let thread = mailbox.records.enumerated().filter { $0.element.account == account && $0.element.threadId.hasSameBytes(as: threadId) }
            guard let first = thread.map(\.element).min(by: MailRecord.chronological) else { return nil }
            let root = thread.first { $0.element.uid.hasSameBytes(as: threadId) }?.element ?? first
            let ordered = thread.sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            var collector = ThreadPage.Collector(paging)
            for (position, record) in ordered where paging.after.map({ $0 < (record.time, Int64(position)) }) ?? true {
                guard collector.offer(record, arrival: Int64(position)) else { break }
            }
            return ThreadDetail(threadId: threadId, subject: Subject.base(root.subject), messages: collector.records.map(\.message),
                                nextCursor: collector.nextCursor)
        }
    }

    public func message(account: String, uid: String) async throws -> Message? {
        mailbox.withLock { $0.record(account, uid)?.message }
    }

    public func send(account: String, _ message: MailDraft) async throws -> Committed<Message> {
        defer { signal.post() }
        let now = clock.now()
        return try mailbox.withLock { mailbox throws(ServiceError) in
            if let parent = message.inReplyTo, mailbox.record(account, parent) == nil {
                throw ServiceError.notFound(kind: "message", id: parent)
            }
            var number = mailbox.sentCounter + 1
            while mailbox.record(account, "s\(number)") != nil { number += 1 }
            mailbox.sentCounter = number
            mailbox.sequence += 1
            mailbox.insert(account: account, uid: "s\(number)", message: message, folder: .sent, read: true, time: now)
            guard let stored = mailbox.record(account, "s\(number)") else { throw ServiceError.notFound(kind: "message", id: "s\(number)") }
            return Committed(stored.message, state: mailbox.state)
        }
    }

    public func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        defer { signal.post() }
        return try mailbox.withLock { mailbox throws(ServiceError) in
            let changed = try mailbox.positions(of: uids, account: account).filter { mailbox.records[$0].read != read }
            guard !changed.isEmpty else { return Committed([], state: mailbox.state) }
            mailbox.sequence += 1
            var touched = Set<GroupKey>()
            for position in changed {
                mailbox.records[position].read = read
                let record = mailbox.records[position]
                mailbox.logChange(record.account, record.uid, .updated)
                touched.insert(GroupKey(account: account, folder: record.folder, threadId: record.threadId))
            }
            mailbox.stamp(touched)
            return Committed(changed.map { mailbox.records[$0].uid }, state: mailbox.state)
        }
    }

    public func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        defer { signal.post() }
        return try mailbox.withLock { mailbox throws(ServiceError) in
            let changed = try mailbox.positions(of: uids, account: account).filter { mailbox.records[$0].folder != folder }
            guard !changed.isEmpty else { return Committed([], state: mailbox.state) }
            mailbox.sequence += 1
            var touched = Set<GroupKey>()
            for position in changed {
                let record = mailbox.records[position]
                touched.insert(GroupKey(account: account, folder: record.folder, threadId: record.threadId))
                touched.insert(GroupKey(account: account, folder: folder, threadId: record.threadId))
                mailbox.records[position].folder = folder
                mailbox.records[position].folderSeq = mailbox.sequence
                mailbox.logChange(record.account, record.uid, .updated)
            }
            mailbox.stamp(touched)
            return Committed(changed.map { mailbox.records[$0].uid }, state: mailbox.state)
        }
    }

    public func search(account: String, query text: String, page: PageRequest) async throws -> Page<SearchHit> {
        let query = SearchQuery(text)
        let found = try mailbox.withLock { mailbox throws(JSONFieldError) -> Page<SearchHit>? in
            let after = try query.after(page.cursor, account: account)
            guard !query.isEmpty else { return Page(items: [], nextCursor: nil) }
            var hits: [(hit: SearchHit, key: SearchQuery.Key)] = []
            for record in mailbox.records where record.account == account {
                // Each message is tokenized here: a cancelled search stops (nil) rather than read them all.
                if Task.isCancelled { return nil }
                guard let score = query.score(from: record.from, subject: record.subject, text: record.text) else { continue }
                let key = SearchQuery.Key(score: score, time: record.time, uid: record.uid)
                if let after, !(after < key) { continue }
                hits.append((SearchHit(record, score: score), key))
            }
            hits.sort { $0.key < $1.key }
            return query.page(Array(hits.prefix(page.limit + 1)), limit: page.limit, account: account)
        }
        guard let found else { throw CancellationError() }
        return found
    }

    public func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        defer { signal.post() }
        return mailbox.withLock { mailbox in
            var outcome = mailbox.importBatch(account: account, records)
            outcome.state = mailbox.state
            return outcome
        }
    }

    public func state() async throws -> String {
        mailbox.withLock { $0.state }
    }

    public func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet {
        try mailbox.withLock { mailbox throws(ServiceError) in
            try mailbox.log.changes(domain: mailDomain, scope: account, since: sinceState, limit: limit)
        }
    }
}

extension SearchHit {
    init(_ record: MailRecord, score: Int) {
        self.init(uid: record.uid, threadId: record.threadId, folder: record.folder, from: record.from, subject: record.subject,
                  snippet: Snippet.make(record.text), date: Timestamp.format(record.time), read: record.read, score: score)
    }
}
