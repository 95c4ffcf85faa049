import FeedDomain
import MailDomain
import SwitchboardCore
import GRDB
import Logging
import SwitchboardStorage
#if canImport(Glibc)
import Glibc
#endif

/// Fills a new database with the demo data, once: the `meta` table remembers that it was done.
enum DemoSeed {
    static let version = "demo-v1"

    static let migrations: [DatabaseMigration] = [
        DatabaseMigration("meta-v1") { db in
            try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        },
    ] + SQLiteFeedService.migrations + SQLiteMailService.migrations

    static func isSeeded(_ database: AppDatabase) throws -> Bool {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'seed'") != nil
        }
    }

    /// Seeds unless already done, with a progress bar on stderr when stderr is a terminal.
    static func seedIfNeeded(_ database: AppDatabase, options: StoreConfiguration, clock: any WallClock, logger: Logger) throws {
        guard try !isSeeded(database) else { return }
        let total = options.mailMessages + options.feedItems
        let bar = ProgressBar(label: "seeding demo data", total: total)
        logger.info("seeding demo data into \(database.path): \(options.mailMessages) messages, \(options.feedItems) feed items")
        try database.writer.write { db in
            // Checked again inside the write: two first runs at once seed once.
            guard try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'seed'") == nil else { return }
            try SQLiteMailService.seed(db, clock: clock, messages: options.mailMessages) { bar.update($0) }
            try SQLiteFeedService.seed(db, count: options.feedItems) { bar.update(options.mailMessages + $0) }
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('seed', ?)", arguments: [version])
        }
        bar.finish()
    }

    /// Removes the database files so the next open starts afresh.
    static func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar {
    private let label: String
    private let total: Int
    private let enabled = isatty(STDERR_FILENO) == 1
    private var lastPercent = -1

    init(label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let filled = percent / 4
        let line = "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 25 - filled))] \(percent)%"
        writeLine(line, to: STDERR_FILENO, newline: false)
    }

    func finish() {
        guard enabled else { return }
        writeLine("", to: STDERR_FILENO)
    }
}
