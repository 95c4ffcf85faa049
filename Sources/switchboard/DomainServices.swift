import CalendarDomain
import CatalogDomain
import ChatDomain
import DomainMethods
import FeedDomain
import Logging
import MailDomain
import SwitchboardCore
import SwitchboardHost

/// The services every domain method is served by: each opened by the backend chosen at start on its
/// domain's first call (a session that only calls `host.*` never touches the database; a call opens
/// only the domain it needs). Requests waiting on an opening with a progress token get `$/progress`
/// while it seeds.
final class DomainServices: Sendable {
    let feed: LazyService<any FeedService>
    let mail: LazyService<any MailService>
    let chat: LazyService<any ChatService>
    let catalog: LazyService<any CatalogService>
    let calendar: LazyService<any CalendarService>

    /// Posted after every write; wakes ``subscriptions``. There before any database is opened, so a
    /// subscription can listen at once.
    let signal = ChangeSignal()
    /// Every `<namespace>.subscribe` of the process.
    let subscriptions: SubscriptionHub
    /// The clock, which needs no database.
    let clock: any WallClock

    /// The store as `host.status` reports it (a PostgreSQL URL without its password).
    let store: HostStatus.Store
    private let options: StoreConfiguration

    /// - Parameter followsOtherProcesses: ``BackendContext/followsOtherProcesses``; a one-shot call passes `false`.
    init(options: StoreConfiguration, logger: Logger, followsOtherProcesses: Bool = true) {
        self.options = options
        let clock = (try? options.makeClock()) ?? SystemClock()
        self.clock = clock
        subscriptions = SubscriptionHub(signal: signal, maxQueuedEvents: options.maxSubscriptionQueue)
        let progress = SeedProgress()
        let context = BackendContext(options: options, clock: clock, logger: logger, progress: progress, signal: signal,
                                     followsOtherProcesses: followsOtherProcesses)
        let backend: any StoreBackend
        switch options.location {
        case .memory:
            backend = MemoryBackend(context)
            store = HostStatus.Store(backend: "memory", location: nil)
        case .sqlite:
            backend = SQLiteBackend(context)
            store = HostStatus.Store(backend: "sqlite", location: options.db ?? StoreConfiguration.dataFolder().map { $0 + "/switchboard.sqlite" })
        case .postgres(let url):
            let postgres = PostgresBackend(url: url, context)
            backend = postgres
            store = HostStatus.Store(backend: "postgres", location: postgres.location)
        }
        let events = ServiceOpeningEvents(waiting: { progress.add($0) }, finished: { error in
            progress.removeRequests()
            if let error { logger.error("cannot open the storage: \(error)") }
        })
        feed = LazyService(named: "feed", events: events) { try backend.openFeed() }
        mail = LazyService(named: "mail", events: events) { try backend.openMail() }
        chat = LazyService(named: "chat", events: events) {
            let chat = try backend.openChat()
            return options.simulate.map { SimulatedChatService(chat, mode: $0, clock: clock) } ?? chat
        }
        catalog = LazyService(named: "catalog", events: events) { try backend.openCatalog() }
        calendar = LazyService(named: "calendar", events: events) { try backend.openCalendar() }
    }

    /// The zone an agenda uses when a request names none: `--time-zone`, else the host's.
    var timeZone: String? { options.timeZone }

    /// The chat user this process acts as: `--chat-user`, else the demo user.
    var chatUser: String { options.chatUser }

    /// The account a bare mail call uses: `--account`, else the demo account.
    var defaultAccount: String { options.account ?? DemoAccount.email }
}
