import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import Logging
import MailDomain
import PostgresNIO
import Synchronization
import SwitchboardCore
import SwitchboardPostgres

/// The PostgreSQL backend (`--db postgres://…`, `postgresql://…`, or `SWITCHBOARD_DATABASE_URL`): every
/// domain in one database that several hosts share (docs/postgres.md).
///
/// The first domain's opening opens ONE ``PostgresStore`` (one connection pool) for all: it connects,
/// runs every domain's named migrations and, once per database, its demo data as the domain's migration
/// `demo-v1` (hosts starting together take turns under the migrator's advisory lock). It also starts
/// ONE ``PostgresChangeListener``, which `LISTEN`s to every domain's channel and posts the host's
/// ``ChangeSignal``, so other hosts' writes wake this host's subscriptions (they read the change log).
final class PostgresBackend: StoreBackend {
    /// The connection settings, or why they cannot be resolved (answered by every domain).
    let settings: Result<PostgresSettings, PostgresSettingsError>
    private let context: BackendContext
    private let opened = Mutex<PostgresStore?>(nil)

    init(url: String, _ context: BackendContext) {
        settings = Result { () throws(PostgresSettingsError) in try PostgresSettings.resolve(url: url) }
        self.context = context
    }

    func openFeed() throws -> any FeedService { PostgresFeedService(store: try store(), signal: context.signal) }
    func openCatalog() throws -> any CatalogService {
        let store = try store(), logger = context.logger
        SearchRefold.run("catalog brochures", logger: logger) { try await PostgresCatalogService.refoldSearch(store, logger: logger) }
        return PostgresCatalogService(store: store, signal: context.signal)
    }

    func openMail() throws -> any MailService {
        let store = try store(), logger = context.logger
        SearchRefold.run("mail messages", logger: logger) { try await PostgresMailService.refoldSearch(store, logger: logger) }
        return PostgresMailService(store: store, clock: context.clock, signal: context.signal)
    }
    func openChat() throws -> any ChatService { PostgresChatService(store: try store(), clock: context.clock, signal: context.signal) }
    func openCalendar() throws -> any CalendarService { PostgresCalendarService(store: try store(), signal: context.signal) }

    /// Each domain on PostgreSQL: its schema and demo data, in the order they migrate.
    var domains: [Domain] {
        let options = context.options, clock = context.clock
        return [
            Domain(name: "feed", unit: "items", migrations: PostgresFeedService.migrations, planned: options.feedItems,
                   count: { Int(try await PostgresFeedService.total($0, logger: $1)) },
                   seed: { [options] connection, logger, progress in
                       try await PostgresFeedService.seed(connection, count: options.feedItems, logger: logger, progress: progress)
                   }),
            Domain(name: "catalog", unit: "brochures", migrations: PostgresCatalogService.migrations, planned: DemoCatalog.brochureCount,
                   count: { try await Self.count("catalog_brochure", $0, logger: $1) },
                   seed: { connection, logger, _ in try await PostgresCatalogService.seed(connection, logger: logger) }),
            Domain(name: "mail", unit: "messages", migrations: PostgresMailService.migrations, planned: options.mailMessages,
                   count: { try await Self.count("mail_message", $0, logger: $1) },
                   seed: { [options, clock] connection, logger, progress in
                       try await PostgresMailService.seed(connection, clock: clock, messages: options.mailMessages, logger: logger, progress: progress)
                   }),
            Domain(name: "chat", unit: "messages", migrations: PostgresChatService.migrations, planned: DemoChat.messageCount,
                   count: { try await Self.count("chat_message", $0, logger: $1) },
                   seed: { [clock] connection, logger, _ in try await PostgresChatService.seed(connection, clock: clock, logger: logger) }),
            Domain(name: "calendar", unit: "events", migrations: PostgresCalendarService.migrations,
                   planned: options.calendarEvents + DemoCalendar.fixedCount,
                   count: { try await Self.count("calendar_event", $0, logger: $1) },
                   seed: { [options, clock] connection, logger, progress in
                       try await PostgresCalendarService.seed(connection, events: DemoSeed.demoCalendar(options, clock: clock),
                                                              logger: logger, progress: progress)
                   }),
        ]
    }

    /// One domain's part of the database.
    struct Domain: Sendable {
        var name: String
        /// What ``count`` counts, for `switchboard seed`'s report.
        var unit: String
        /// The schema (named migrations of the domain).
        var migrations: PostgresMigrations
        /// How many ``seed`` writes with these options.
        var planned: Int
        /// How many the database holds now.
        var count: @Sendable (PostgresConnection, Logger) async throws -> Int
        /// Writes the demo data in the migration's transaction, reporting how many so far.
        var seed: @Sendable (PostgresConnection, Logger, (Int) -> Void) async throws -> Void
    }

    /// The database as `host.status` and errors show it: the URL with the password replaced.
    var location: String {
        switch settings {
        case .success(let settings): settings.redactedDescription
        case .failure: "(PostgreSQL settings)"
        }
    }

    /// The store, opened by the first domain that needs it (blocking this thread, which ``LazyService``
    /// started for the opening); a failure is tried again next time.
    private func store() throws -> PostgresStore {
        try opened.withLock { opened in
            if let opened { return opened }
            let settings = try resolvedSettings()
            let migrations = domains.map { demoMigrations($0) }
            let logger = context.logger
            for note in settings.notes { logger.warning("PostgreSQL: \(note)") }
            let store = try BlockingWait.run { () async throws -> PostgresStore in
                do throws(PostgresStoreError) {
                    return try await PostgresStore.open(settings, migrations: migrations, logger: logger)
                } catch {
                    throw error.serviceError
                }
            }
            if context.followsOtherProcesses {
                let signals = Dictionary(uniqueKeysWithValues: domains.map { ($0.name, context.signal) })
                let listener = PostgresChangeListener(settings: settings, signals: signals, logger: logger)
                // Lives as long as the process, reconnecting as needed.
                Task.detached { await listener.run() }
            }
            opened = store
            return store
        }
    }

    private func resolvedSettings() throws(ServiceError) -> PostgresSettings {
        switch settings {
        case .success(let settings): return settings
        case .failure(let error): throw .storageUnavailable(path: location, cause: error.description)
        }
    }

    /// The domain's migrations followed by its demo data, `demo-v1`, which runs once per database.
    private func demoMigrations(_ domain: Domain) -> PostgresMigrations {
        let progress = context.progress, location = location
        let seed = PostgresMigration(DemoSeed.version) { connection, logger in
            progress.start("seeding demo data into \(location): \(domain.planned) \(domain.name) \(domain.unit)", total: domain.planned)
            try await domain.seed(connection, logger) { progress.update($0) }
            progress.finish()
        }
        return PostgresMigrations(domain: domain.migrations.domain, domain.migrations.migrations + [seed])
    }

    /// Whether the server can be reached (`serve`, `call` and `seed` check at start): one connection,
    /// closed at once; the error names the server, never the password.
    static func checkReachable(url: String) throws(ServiceError) {
        let settings: PostgresSettings
        do {
            settings = try PostgresSettings.resolve(url: url)
        } catch {
            throw .storageUnavailable(path: "(PostgreSQL settings)", cause: error.description)
        }
        let quiet = Logger(label: "switchboard.postgres.check") { _ in SwiftLogNoOpLogHandler() }
        do {
            try BlockingWait.run { () async throws in
                do throws(PostgresStoreError) {
                    try await PostgresStore.checkReachable(settings, logger: quiet)
                } catch {
                    throw error.serviceError
                }
            }
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .storageUnavailable(path: settings.redactedDescription, cause: "\(error)")
        }
    }

    /// `switchboard seed` on PostgreSQL: opens the store (migrations and demo data where missing) and
    /// says what each domain holds.
    func seed() throws -> [DemoSeed.Outcome] {
        let store = try store()
        let domains = domains
        return try BlockingWait.run {
            try await store.read { connection in
                var outcomes: [DemoSeed.Outcome] = []
                for domain in domains {
                    let seededNow = store.applied[domain.migrations.domain]?.contains(DemoSeed.version) ?? false
                    outcomes.append(DemoSeed.Outcome(domain: domain.name, unit: domain.unit, seededNow: seededNow,
                                                     count: try await domain.count(connection, store.logger)))
                }
                return outcomes
            }
        }
    }

    private static func count(_ table: StaticString, _ connection: PostgresConnection, logger: Logger) async throws -> Int {
        for try await count in try await connection.query("SELECT count(*) FROM \(unescaped: "\(table)")", logger: logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }
}
