import ArgumentParser
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the domains keep their data and what time it is: shared by `serve`, `call` and `seed`.
struct StoreOptions: ParsableArguments {
    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case sqlite, memory
    }

    @Option(help: ArgumentHelp(
        "SQLite database file, or :memory: for a throwaway one.",
        discussion: "Default: $XDG_DATA_HOME/switchboard/switchboard.sqlite (~/.local/share/... without XDG_DATA_HOME), created and seeded with demo data on first run."
    ))
    var db: String?

    @Option(help: "Where the domains keep data: sqlite (the database) or memory (deterministic fixtures, nothing written).")
    var backend: Backend = .sqlite

    @Option(help: ArgumentHelp(
        "A fixed clock, e.g. 2026-01-01T09:00:00Z: every timestamp and relative date becomes reproducible.",
        discussion: "Defaults to $SWITCHBOARD_NOW; without either, the system clock."
    ))
    var now: String?

    @Option(help: "The mail account a bare mail call uses before mail.login (default: the demo account).")
    var account: String?

    @Option(help: "How many feed items the demo data holds (when seeding).")
    var feedItems: Int = 1_000_000

    @Option(help: "How many messages the demo mailbox holds (when seeding).")
    var mailMessages: Int = 400

    func validate() throws {
        _ = try makeClock()
        guard feedItems >= 0, feedItems <= 100_000_000 else {
            throw ValidationError("--feed-items must be 0...100000000, got \(feedItems)")
        }
        guard mailMessages >= 0, mailMessages <= 10_000_000 else {
            throw ValidationError("--mail-messages must be 0...10000000, got \(mailMessages)")
        }
    }

    func makeClock() throws -> any Clock {
        let text = now ?? getenv("SWITCHBOARD_NOW").map { String(cString: $0) }
        guard let text, !text.isEmpty else { return SystemClock() }
        guard let instant = Timestamp.parse(text) else {
            throw ValidationError("--now takes an RFC 3339 time such as 2026-01-01T09:00:00Z, got \"\(text)\"")
        }
        return FixedClock(milliseconds: instant)
    }

    /// The database path: `--db`, else the XDG data folder (created if needed).
    func databasePath() throws -> String {
        if let db { return db }
        let base: String
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), data.hasPrefix("/") {
            base = data
        } else if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            base = home + "/.local/share"
        } else {
            throw ValidationError("cannot place the database: set --db, XDG_DATA_HOME or HOME")
        }
        let folder = base + "/switchboard"
        try makeDirectories(folder)
        return folder + "/switchboard.sqlite"
    }

    private func makeDirectories(_ path: String) throws {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw ValidationError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}
