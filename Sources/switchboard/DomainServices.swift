import CalendarDomain
import CatalogDomain
import ChatDomain
import DomainMethods
import FeedDomain
import GRDB
import MailDomain
import Logging
import JSONRPC
import Synchronization
import SwitchboardCore
import SwitchboardStorage
#if canImport(Glibc)
import Glibc
#endif

/// The services every domain method is served by, on the chosen backend.
struct DomainServices: Sendable {
    var feed: any FeedService
    var mail: any MailService
    var chat: any ChatService
    var catalog: any CatalogService
    var calendar: any CalendarService
    var clock: any WallClock
    /// What seeding found or did, per domain (empty in memory).
    var seeding: [DemoSeed.Outcome] = []
    /// Keeps this process's commits posting the change signal (SQLite).
    var observation: AnyDatabaseCancellable?

    /// Opens the backend. On SQLite, each domain not seeded yet gets its demo data first. Every
    /// storage failure is a ``ServiceError`` naming the file and the cause.
    ///
    /// - Parameter reset: deletes the database first (under the setup lock); the caller has checked
    ///   that it is a switchboard database.
    /// - Parameter signal: posted after every write, of this process and (SQLite) of any other on the
    ///   same database, which a ``DatabaseWatcher`` started here notices.
    static func open(_ options: StoreConfiguration, logger: Logger, progress: SeedProgress,
                     signal: ChangeSignal = ChangeSignal(), reset: Bool = false) throws -> DomainServices {
        let clock = try options.makeClock()
        switch options.backend {
        case .memory:
            return DomainServices(
                feed: InMemoryFeedService(demoCount: options.feedItems, signal: signal),
                mail: InMemoryMailService(clock: clock, demoMessages: options.mailMessages, signal: signal),
                chat: simulating(InMemoryChatService(clock: clock, signal: signal), options, clock: clock),
                catalog: InMemoryCatalogService(signal: signal),
                calendar: InMemoryCalendarService(events: DemoSeed.demoCalendar(options, clock: clock), signal: signal),
                clock: clock
            )
        case .sqlite:
            let path = try options.storagePath()
            var seeding: [DemoSeed.Outcome] = []
            let database = try AppDatabase(
                path: path, migrations: DemoSeed.migrations,
                beforeOpen: { if reset { DatabaseFile.remove(path) } },
                prepare: { seeding = try DemoSeed.seedMissing($0, options: options, clock: clock, logger: logger, progress: progress) },
                waiting: { writeLine("switchboard: waiting for another switchboard process to finish setting up \(path)", to: STDERR_FILENO) }
            )
            let observation = database.signalChanges(to: signal)
            if database.path != ":memory:" {
                let watcher = DatabaseWatcher(path: database.path, signal: signal)
                try OSThread.detach(name: "sb-db-watch") { watcher.run() }
            }
            return DomainServices(
                feed: SQLiteFeedService(database: database),
                mail: SQLiteMailService(database: database, clock: clock),
                chat: simulating(SQLiteChatService(database: database, clock: clock, signal: signal), options, clock: clock),
                catalog: SQLiteCatalogService(database: database, signal: signal),
                calendar: SQLiteCalendarService(database: database, signal: signal),
                clock: clock,
                seeding: seeding,
                observation: observation
            )
        }
    }

    /// `chat`, showing the failure `--simulate` names, if any.
    private static func simulating(_ chat: any ChatService, _ options: StoreConfiguration, clock: any WallClock) -> any ChatService {
        options.simulate.map { SimulatedChatService(chat, mode: $0, clock: clock) } ?? chat
    }
}

/// Opens the services on first use, so a session that only calls `host.*` never touches the
/// database and starts as fast as the host alone. Opening (and seeding, on first run) happens on a
/// thread of its own while callers suspend: it never holds up Swift's small task pool. Requests
/// waiting on it with a progress token get `$/progress` while it seeds.
///
/// A failure to open is reported to each caller waiting, and the next call tries again: a folder
/// created or a permission fixed later is picked up without restarting the session.
final class LazyServices: Sendable {
    private enum State {
        case closed
        case opening([CheckedContinuation<DomainServices, any Error>])
        case opened(DomainServices)
    }

    private let options: StoreConfiguration
    private let logger: Logger
    private let progress = SeedProgress()
    private let state = Mutex(State.closed)
    /// Posted after every write; wakes ``subscriptions``.
    let signal = ChangeSignal()
    /// Every `<namespace>.subscribe` of the process.
    let subscriptions: SubscriptionHub

    init(options: StoreConfiguration, logger: Logger) {
        self.options = options
        self.logger = logger
        subscriptions = SubscriptionHub(signal: signal, maxQueuedEvents: options.maxSubscriptionQueue)
    }

    func get() async throws -> DomainServices {
        if case .opened(let services) = state.withLock({ $0 }) { return services }
        if let context = DomainRequest.context { progress.add(context) }
        return try await withCheckedThrowingContinuation { continuation in
            let startOpening: Bool = state.withLock { state in
                switch state {
                case .closed:
                    state = .opening([continuation])
                    return true
                case .opening(let waiting):
                    state = .opening(waiting + [continuation])
                case .opened(let services):
                    continuation.resume(returning: services)
                }
                return false
            }
            guard startOpening else { return }
            do {
                try OSThread.detach(name: "sb-open-store") { [self] in
                    finishOpening(Result { try DomainServices.open(options, logger: logger, progress: progress, signal: signal) })
                }
            } catch {
                finishOpening(.failure(error))
            }
        }
    }

    /// Answers every request that waited for the opening; a failure leaves it to the next call.
    private func finishOpening(_ result: Result<DomainServices, any Error>) {
        progress.removeRequests()
        if case .failure(let error) = result { logger.error("cannot open the storage: \(error)") }
        let waiting: [CheckedContinuation<DomainServices, any Error>] = state.withLock { state in
            defer {
                if case .success(let services) = result { state = .opened(services) } else { state = .closed }
            }
            if case .opening(let waiting) = state { return waiting }
            return []
        }
        waiting.forEach { $0.resume(with: result) }
    }

    /// The feed, opened on first use.
    var feed: any FeedService { LazyFeed(services: self) }

    /// Mail, opened on first use.
    var mail: any MailService { LazyMail(services: self) }

    /// Chat, opened on first use.
    var chat: any ChatService { LazyChat(services: self) }
    /// The catalog, opened on first use.
    var catalog: any CatalogService { LazyCatalog(services: self) }
    /// The calendar, opened on first use.
    var calendar: any CalendarService { LazyCalendar(services: self) }

    /// The zone an agenda uses when a request names none: `--time-zone`, else the host's.
    var timeZone: String? { options.timeZone }

    /// The clock, which needs no database.
    var clock: any WallClock { (try? options.makeClock()) ?? SystemClock() }

    /// The chat user this process acts as: `--chat-user`, else the demo user.
    var chatUser: String { options.chatUser }

    /// The account a bare mail call uses: `--account`, else the demo account.
    var defaultAccount: String { options.account ?? DemoAccount.email }
}

/// Forwards to the feed service of ``LazyServices``, opening it on the first call.
struct LazyFeed: FeedService {
    let services: LazyServices

    func items(after afterID: Int64, limit: Int) async throws -> [Profile] { try await services.get().feed.items(after: afterID, limit: limit) }
    func slice(after afterID: Int64, limit: Int) async throws -> FeedSlice { try await services.get().feed.slice(after: afterID, limit: limit) }
    func item(id: Int64) async throws -> Profile? { try await services.get().feed.item(id: id) }
    func count() async throws -> Int64 { try await services.get().feed.count() }
    func state() async throws -> String { try await services.get().feed.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await services.get().feed.changes(since: sinceState, limit: limit) }
    func append(_ profiles: [Profile]) async throws -> Committed<[Profile]> { try await services.get().feed.append(profiles) }
}

/// Forwards to the mail service of ``LazyServices``, opening it on the first call.
struct LazyMail: MailService {
    let services: LazyServices

    private var mail: any MailService { get async throws { try await services.get().mail } }

    func login(email: String) async throws -> LoginOutcome { try await mail.login(email: email) }
    func folders(account: String) async throws -> [FolderSummary] { try await mail.folders(account: account) }
    func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation> {
        try await mail.conversations(account: account, folder: folder, unreadOnly: unreadOnly, page: page)
    }
    func thread(account: String, threadId: String) async throws -> ThreadDetail? { try await mail.thread(account: account, threadId: threadId) }
    func message(account: String, uid: String) async throws -> Message? { try await mail.message(account: account, uid: uid) }
    func send(account: String, _ message: MailDraft) async throws -> Committed<Message> { try await mail.send(account: account, message) }
    func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        try await mail.markRead(account: account, uids: uids, read: read)
    }
    func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        try await mail.move(account: account, uids: uids, to: folder)
    }
    func search(account: String, query: String, page: PageRequest) async throws -> Page<SearchHit> {
        try await mail.search(account: account, query: query, page: page)
    }
    func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        try await mail.importMessages(account: account, records)
    }
    func state() async throws -> String { try await mail.state() }
    func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await mail.changes(account: account, since: sinceState, limit: limit)
    }
}

import CalendarDomain
/// Forwards to the chat service of ``LazyServices``, opening it on the first call.
struct LazyChat: ChatService {
    let services: LazyServices

    private var chat: any ChatService { get async throws { try await services.get().chat } }

    /// The services' signal, there before the database is opened: a subscription can listen at once.
    var signal: ChangeSignal { services.signal }

    func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> { try await chat.users(except: user, page: page) }
    func user(id: String) async throws -> ChatUser? { try await chat.user(id: id) }
    func rooms(user: String) async throws -> [ChatRoom] { try await chat.rooms(user: user) }
    func room(user: String, id: String) async throws -> ChatRoom? { try await chat.room(user: user, id: id) }
    func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> { try await chat.openDirect(user: user, with: other) }
    func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        try await chat.history(user: user, roomId: roomId, page: page)
    }
    func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        try await chat.markRead(user: user, roomId: roomId, upTo: messageId)
    }
    func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        try await chat.sentMessage(sender: sender, clientMessageId: clientMessageId)
    }
    func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        try await chat.send(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
    }
    func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>] {
        do { return try await chat.send(batch) } catch { return batch.map { _ in .failure(error) } }
    }
    func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        try await chat.sendCheck(sender: sender, roomId: roomId, clientMessageId: clientMessageId)
    }
    func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        try await chat.messages(roomId: roomId, after: sinceState, limit: limit)
    }
    func state() async throws -> String { try await chat.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await chat.changes(since: sinceState, limit: limit) }
}

/// Forwards to the catalog service of ``LazyServices``, opening it on the first call.
struct LazyCatalog: CatalogService {
    let services: LazyServices

    private var catalog: any CatalogService { get async throws { try await services.get().catalog } }

    func sectors() async throws -> [Sector] { try await catalog.sectors() }
    func sector(id: Int64) async throws -> Sector? { try await catalog.sector(id: id) }
    func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try await catalog.brochures(sectorId: sectorId, after: afterID, limit: limit)
    }
    func brochure(id: Int64) async throws -> Brochure? { try await catalog.brochure(id: id) }
    func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try await catalog.search(query, after: afterID, limit: limit)
    }
    func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> { try await catalog.importBatch(batch) }
    func state() async throws -> String { try await catalog.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await catalog.changes(since: sinceState, limit: limit)
    }
}

/// Forwards to the calendar service of ``LazyServices``, opening it on the first call.
struct LazyCalendar: CalendarService {
    let services: LazyServices

    private var calendar: any CalendarService { get async throws { try await services.get().calendar } }

    func events(touching days: ClosedRange<CalendarDate>) async throws -> EventSnapshot { try await calendar.events(touching: days) }
    func allEvents() async throws -> EventSnapshot { try await calendar.allEvents() }
    func event(id: String) async throws -> CalendarEvent? { try await calendar.event(id: id) }
    func put(_ events: [CalendarEvent], replacing: Bool) async throws -> Committed<[PutOutcome]> {
        try await calendar.put(events, replacing: replacing)
    }
    func edit(id: String, _ change: @escaping @Sendable (CalendarEvent) throws -> EventChange) async throws -> Committed<EventChange> {
        try await calendar.edit(id: id, change)
    }
    func state() async throws -> String { try await calendar.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await calendar.changes(since: sinceState, limit: limit) }
}
