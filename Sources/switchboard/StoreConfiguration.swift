import CalendarDomain
import ChatDomain
import DomainMethods
import MailDomain
import SwitchboardCore
import SwitchboardPostgres
import SwitchboardStorage
#if canImport(Glibc)
import Glibc
#endif

/// Where the domains keep their data and what time it is, as plain values: what `StoreOptions`
/// parses, and what a bare `switchboard` uses without parsing anything.
struct StoreConfiguration: Sendable {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, memory
    }

    var db: String?
    var backend: Backend = .sqlite
    var now: String?
    var account: String?
    var feedItems = 1_000_000
    var mailMessages = 400
    /// Events one subscription keeps for a client that is not reading (``SubscriptionHub``).
    var maxSubscriptionQueue = SubscriptionHub.defaultMaxQueuedEvents
    /// A chat failure mode to show (`--simulate`), for harnesses testing their error paths.
    var simulate: ChatSimulation?
    /// The chat user this process acts as (`--chat-user`).
    var chatUser = DemoChat.me.id
    /// One-off events of the demo calendar besides its fixed ones.
    var calendarEvents = 300
    /// The zone a calendar agenda uses when a request names none; `nil`: the host's.
    var timeZone: String?

    /// Which store the settings select.
    enum Location: Equatable, Sendable {
        case memory, sqlite
        /// A PostgreSQL URL (`postgres://…`, `postgresql://…`): `--db`, else `SWITCHBOARD_DATABASE_URL`.
        case postgres(url: String)
    }

    /// `--backend memory`; else `--db` (a PostgreSQL URL, or a SQLite file); else `SWITCHBOARD_DATABASE_URL`
    /// when set (a PostgreSQL URL); else the default SQLite file.
    var location: Location {
        if backend == .memory { return .memory }
        if let db { return PostgresSettings.isPostgresURL(db) ? .postgres(url: db) : .sqlite }
        if let url = getenv("SWITCHBOARD_DATABASE_URL").map({ String(cString: $0) }), !url.isEmpty { return .postgres(url: url) }
        return .sqlite
    }

    func validate() throws(ConfigurationError) {
        _ = try makeClock()
        if case .postgres(let url) = location {
            do {
                _ = try PostgresSettings.resolve(url: url)
            } catch {
                throw ConfigurationError("\(db == nil ? "SWITCHBOARD_DATABASE_URL" : "--db"): \(error)")
            }
        }
        if let account, EmailAddress.normalized(account) == nil {
            throw ConfigurationError("--account takes \(EmailAddress.expected), as mail.login does, got \"\(account)\"")
        }
        guard feedItems >= 0, feedItems <= 100_000_000 else {
            throw ConfigurationError("--feed-items must be 0...100000000, got \(feedItems)")
        }
        guard mailMessages >= 0, mailMessages <= 10_000_000 else {
            throw ConfigurationError("--mail-messages must be 0...10000000, got \(mailMessages)")
        }
        guard (1...1_000_000).contains(maxSubscriptionQueue) else {
            throw ConfigurationError("--max-subscription-queue must be 1...1000000, got \(maxSubscriptionQueue)")
        }
        guard DemoChat.users.contains(where: { $0.id == chatUser }) else {
            throw ConfigurationError("--chat-user takes a user id u0...u\(DemoChat.users.count - 1) (see chat.users), got \"\(chatUser)\"")
        }
        guard calendarEvents >= 0, calendarEvents <= 1_000_000 else {
            throw ConfigurationError("--calendar-events must be 0...1000000, got \(calendarEvents)")
        }
        // Checked only when given: without it no zone data is loaded before a calendar request.
        if let timeZone, ZoneRules.named(timeZone) == nil {
            throw ConfigurationError("--time-zone takes an IANA zone name such as Europe/Berlin, got \"\(timeZone)\"")
        }
    }

    /// `--now`, else `$SWITCHBOARD_NOW`, else the system clock.
    func makeClock() throws(ConfigurationError) -> any WallClock {
        let text = now ?? getenv("SWITCHBOARD_NOW").map { String(cString: $0) }
        guard let text, !text.isEmpty else { return SystemClock() }
        guard let instant = Timestamp.parse(text) else {
            throw ConfigurationError("--now takes an RFC 3339 time such as 2026-01-01T09:00:00Z, got \"\(text)\"")
        }
        return FixedClock(milliseconds: instant)
    }

    /// The database path as ``databasePath()`` finds it, a failure being the storage error requests get.
    func storagePath() throws(ServiceError) -> String {
        do {
            return try databasePath()
        } catch {
            throw ServiceError.storageUnavailable(path: db ?? "(default database)", cause: error.message)
        }
    }

    /// Checks, without opening it, that the database can be used (for `call`, `seed` and `serve` at
    /// start): the path, the file's kind and header, the folder; on PostgreSQL, that the server answers
    /// (one connection). Nothing to check in memory.
    func checkStorage() throws(ServiceError) {
        switch location {
        case .memory: return
        case .postgres(let url): return try PostgresBackend.checkReachable(url: url)
        case .sqlite: break
        }
        let path = try storagePath()
        guard path != ":memory:" else { return }
        _ = try DatabaseFile.access(path)
    }

    /// The database path: `--db`, else the XDG data folder (created if needed).
    func databasePath() throws(ConfigurationError) -> String {
        if let db { return db }
        guard let folder = Self.dataFolder() else {
            throw ConfigurationError("cannot place the database: set --db, XDG_DATA_HOME or HOME")
        }
        var current = ""
        for component in folder.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw ConfigurationError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
        return folder + "/switchboard.sqlite"
    }

    /// The host's data folder, where the default database lives: `$XDG_DATA_HOME/switchboard`, else
    /// `~/.local/share/switchboard`; `nil` with neither set. Not created here.
    static func dataFolder() -> String? {
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), data.hasPrefix("/") { return data + "/switchboard" }
        if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty { return home + "/.local/share/switchboard" }
        return nil
    }
}

/// A setting that cannot work, with the sentence that says why.
struct ConfigurationError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
    /// The message without the value it quotes (a message about a value ends `, got VALUE`): for values
    /// read from a file.
    var withoutValue: String { message.firstRange(of: ", got ").map { String(message[..<$0.lowerBound]) } ?? message }
}
