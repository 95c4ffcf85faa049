import FeedDomain
import Logging
import Synchronization
import SwitchboardCore
import SwitchboardStorage

/// The services every domain method is served by, on the chosen backend.
struct DomainServices: Sendable {
    var feed: any FeedService
    var clock: any Clock

    /// Opens the backend. On SQLite, a database that was never seeded gets the demo data first.
    static func open(_ options: StoreOptions, logger: Logger) throws -> DomainServices {
        let clock = try options.makeClock()
        switch options.backend {
        case .memory:
            return DomainServices(feed: InMemoryFeedService(demoCount: options.feedItems), clock: clock)
        case .sqlite:
            let path = try options.databasePath()
            let database = try AppDatabase(path: path, migrations: DemoSeed.migrations)
            try DemoSeed.seedIfNeeded(database, feedItems: options.feedItems, logger: logger)
            return DomainServices(feed: SQLiteFeedService(database: database), clock: clock)
        }
    }
}

/// Opens the services on first use, so a session that only calls `host.*` never touches the
/// database and starts as fast as the host alone. A failure to open is reported to each caller.
final class LazyServices: Sendable {
    private let options: StoreOptions
    private let logger: Logger
    private let opened = Mutex<Result<DomainServices, any Error>?>(nil)

    init(options: StoreOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    func get() throws -> DomainServices {
        try opened.withLock { state in
            if state == nil { state = Result { try DomainServices.open(options, logger: logger) } }
            return try state!.get()
        }
    }

    /// The feed, opened on first use.
    var feed: any FeedService { LazyFeed(services: self) }
}

/// Forwards to the feed service of ``LazyServices``, opening it on the first call.
struct LazyFeed: FeedService {
    let services: LazyServices

    func items(after afterID: Int64, limit: Int) async throws -> [Profile] { try await services.get().feed.items(after: afterID, limit: limit) }
    func item(id: Int64) async throws -> Profile? { try await services.get().feed.item(id: id) }
    func count() async throws -> Int64 { try await services.get().feed.count() }
    func state() async throws -> String { try await services.get().feed.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await services.get().feed.changes(since: sinceState, limit: limit) }
    func append(_ profiles: [Profile]) async throws -> [Profile] { try await services.get().feed.append(profiles) }
}
