import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import JSONRPC
import Logging
import MailDomain
import Synchronization
import SwitchboardCore
import SwitchboardStorage
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite backend (the default): every domain in one database file, opened once, on the first
/// domain's call. A database that is current (every migration applied, every domain seeded: one
/// read) opens for reading only; the writer opens on the first write. Otherwise it is migrated and
/// seeded under the setup lock first.
final class SQLiteBackend: StoreBackend {
    private let context: BackendContext
    private let opened = Mutex<AppDatabase?>(nil)

    init(_ context: BackendContext) {
        self.context = context
    }

    func openFeed() throws -> any FeedService { SQLiteFeedService(database: try database()) }
    func openMail() throws -> any MailService { SQLiteMailService(database: try database(), clock: context.clock) }
    func openChat() throws -> any ChatService { SQLiteChatService(database: try database(), clock: context.clock, signal: context.signal) }
    func openCatalog() throws -> any CatalogService {
        let database = try database()
        SearchRefold.run("catalog brochures", logger: context.logger) { try await SQLiteCatalogService.refoldSearch(database) }
        return SQLiteCatalogService(database: database, signal: context.signal)
    }
    func openCalendar() throws -> any CalendarService { SQLiteCalendarService(database: try database(), signal: context.signal) }

    /// The database, opened by the first domain that needs it; a failure is tried again next time.
    /// Other processes' commits post the context's signal through a ``DatabaseWatcher`` started here, when the
    /// process follows them.
    private func database() throws -> AppDatabase {
        try opened.withLock { opened in
            if let opened { return opened }
            let context = context
            let path = try context.options.storagePath()
            let database = try AppDatabase(
                path: path, migrations: DemoSeed.migrations, signal: context.signal, current: DemoSeed.isSeeded,
                prepare: {
                    _ = try DemoSeed.seedMissing($0, options: context.options, clock: context.clock, logger: context.logger, progress: context.progress)
                },
                waiting: Self.waiting(path)
            )
            if context.followsOtherProcesses, database.path != ":memory:" {
                // Watched from the watcher's own thread: adding an inotify watch on a folder walks the
                // folder's cached entries (10 ms for a /tmp of 9,400 files), and no answer waits for it.
                // What another process committed before the watch was set is caught by one post after.
                let path = database.path, signal = context.signal
                try OSThread.detach(name: "sb-db-watch") {
                    let watcher = DatabaseWatcher(path: path, signal: signal)
                    signal.post()
                    watcher.run()
                }
            }
            opened = database
            return database
        }
    }

    /// Opens the database for `switchboard seed`: migrates, seeds what is missing and says what each
    /// domain holds.
    ///
    /// - Parameter reset: deletes the database first (see ``AppDatabase``'s `reset`): never a file that is not a
    ///   switchboard database, and never while another switchboard process has it open (``DatabaseInUse``).
    static func seed(_ options: StoreConfiguration, logger: Logger, reset: Bool) throws -> [DemoSeed.Outcome] {
        let path = try options.storagePath()
        let clock = try options.makeClock()
        var seeding: [DemoSeed.Outcome] = []
        _ = try AppDatabase(
            path: path, migrations: DemoSeed.migrations,
            reset: reset,
            prepare: { seeding = try DemoSeed.seedMissing($0, options: options, clock: clock, logger: logger, progress: SeedProgress()) },
            waiting: waiting(path)
        )
        return seeding
    }

    private static func waiting(_ path: String) -> () -> Void {
        { writeLine("switchboard: waiting for another switchboard process to finish setting up \(path)", to: STDERR_FILENO) }
    }
}
