import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import MailDomain
import SwitchboardCore
import GRDB
import Logging
import SwitchboardStorage

/// Fills a database with the demo data, domain by domain: the `meta` table holds one flag per
/// domain (`seed/mail`, `seed/feed`), so a database seeded before a domain existed gets that
/// domain's demo data the next time it is opened, and nothing is seeded twice.
///
/// - Important: Runs under the database's setup lock (see ``AppDatabase``), and each domain checks
///   its flag again inside its write transaction: processes starting at once seed each domain once.
enum DemoSeed {
    static let version = "demo-v1"

    static let migrations: [DatabaseMigration] = [
        DatabaseMigration("meta-v1") { db in
            try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        },
        // Databases seeded before the per-domain flags had one flag for mail and feed together.
        DatabaseMigration("meta-seed-per-domain-v1") { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO meta(key, value) SELECT 'seed/mail', value FROM meta WHERE key = 'seed';
                INSERT OR IGNORE INTO meta(key, value) SELECT 'seed/feed', value FROM meta WHERE key = 'seed';
                DELETE FROM meta WHERE key = 'seed';
                """)
        },
    ] + SQLiteFeedService.migrations + SQLiteMailService.migrations + SQLiteChatService.migrations + SQLiteCatalogService.migrations + SQLiteCalendarService.migrations

    /// One domain's demo data.
    struct Domain: Sendable {
        var name: String
        /// What its count counts, for reports: "messages", "items".
        var unit: String
        /// How many it will write with these options.
        var planned: @Sendable (StoreConfiguration) -> Int
        /// How many it holds now.
        var count: @Sendable (Database) throws -> Int
        /// Writes the demo data, reporting the number written so far.
        var seed: @Sendable (Database, StoreConfiguration, any WallClock, (Int) -> Void) throws -> Void

        var flag: String { "seed/\(name)" }
    }

    static let domains: [Domain] = [
        Domain(name: "mail", unit: "messages", planned: { $0.mailMessages },
               count: { db in
                   try Int.fetchOne(db, sql: "SELECT count(*) FROM mail_message WHERE account = ?", arguments: [DemoAccount.email]) ?? 0
               },
               seed: { db, options, clock, progress in
                   try SQLiteMailService.seed(db, clock: clock, messages: options.mailMessages, progress: progress)
               }),
        Domain(name: "feed", unit: "items", planned: { $0.feedItems },
               count: { db in try Int.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM feed_item") ?? 0 },
               seed: { db, options, _, progress in try SQLiteFeedService.seed(db, count: options.feedItems, progress: progress) }),
        Domain(name: "chat", unit: "messages", planned: { _ in DemoChat.messageCount },
               count: { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message") ?? 0 },
               seed: { db, _, clock, progress in
                   try SQLiteChatService.seed(db, clock: clock)
                   progress(DemoChat.messageCount)
               }),
        Domain(name: "catalog", unit: "brochures", planned: { _ in DemoCatalog.brochureCount },
               count: { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM catalog_brochure") ?? 0 },
               seed: { db, _, _, progress in try SQLiteCatalogService.seed(db, progress: progress) }),
        Domain(name: "calendar", unit: "events", planned: { $0.calendarEvents + DemoCalendar.fixedCount },
               count: { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM calendar_event") ?? 0 },
               seed: { db, options, clock, progress in
                   try SQLiteCalendarService.seed(db, events: demoCalendar(options, clock: clock), progress: progress)
               }),
    ]

    /// The demo calendar around today by `clock` (in UTC), with `--calendar-events` one-off events.
    static func demoCalendar(_ options: StoreConfiguration, clock: any WallClock) -> [CalendarEvent] {
        DemoCalendar.events(around: CalendarDate(utcMilliseconds: clock.now()), extra: options.calendarEvents)
    }

    /// What seeding did for one domain.
    struct Outcome: Sendable, Equatable {
        var domain: String
        var unit: String
        /// True when this call wrote the demo data; false when the domain was seeded already.
        var seededNow: Bool
        var count: Int

        var summary: String { "\(domain) (\(count) \(unit))" }
    }

    /// True when every domain's flag is there: nothing to seed. One statement, for the check at open.
    @Sendable static func isSeeded(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: seededQuery) == domains.count
    }

    /// ``isSeeded(_:)``'s statement, the flags written in (they are ours, and hold no quote). Made
    /// with a loop: the first generic `joined` or `map` of a process costs a fresh one a tenth of a
    /// millisecond in run-time type look-ups.
    private static let seededQuery: String = {
        var flags = ""
        for domain in domains { flags += (flags.isEmpty ? "'" : ", '") + domain.flag + "'" }
        return "SELECT count(*) FROM meta WHERE key IN (\(flags))"
    }()

    /// Seeds every domain whose flag is missing; reports progress over all of them together.
    static func seedMissing(_ database: AppDatabase, options: StoreConfiguration, clock: any WallClock,
                            logger: Logger, progress: SeedProgress) throws -> [Outcome] {
        let missing = try database.writer.read { db in
            try domains.filter { try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [$0.flag]) == nil }
        }.map(\.name)
        if !missing.isEmpty, database.isReadOnly {
            logger.warning("\(database.path) is read-only: the demo data of \(missing.joined(separator: ", ")) cannot be added")
        }
        let toSeed = database.isReadOnly ? [] : domains.filter { missing.contains($0.name) }
        let total = toSeed.reduce(0) { $0 + $1.planned(options) }
        if !toSeed.isEmpty {
            let what = toSeed.map { "\($0.planned(options)) \($0.name) \($0.unit)" }.joined(separator: ", ")
            progress.start("seeding demo data into \(database.path): \(what)", total: total)
            logger.info("seeding demo data into \(database.path): \(what)")
        }
        var outcomes: [Outcome] = []
        var done = 0
        for domain in domains {
            let base = done
            let seededNow = try toSeed.contains(where: { $0.name == domain.name }) && database.writer.write { db in
                // Checked again inside the write: another process may have seeded it meanwhile.
                guard try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [domain.flag]) == nil
                else { return false }
                try domain.seed(db, options, clock) { progress.update(base + $0) }
                try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [domain.flag, version])
                return true
            }
            if seededNow { done += domain.planned(options) }
            outcomes.append(Outcome(domain: domain.name, unit: domain.unit, seededNow: seededNow,
                                    count: try database.writer.read { try domain.count($0) }))
        }
        if !toSeed.isEmpty { progress.finish() }
        return outcomes
    }
}
