import ArgumentParser
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the domains keep their data and what time it is: the `--db`, `--backend`, `--now`, … flags
/// of `serve`, `call` and `seed`, read into a ``StoreConfiguration``.
struct StoreOptions: ParsableArguments {
    typealias Backend = StoreConfiguration.Backend

    @Option(help: ArgumentHelp(
        "SQLite database file, or :memory: for a throwaway one.",
        discussion: "Default: $XDG_DATA_HOME/switchboard/switchboard.sqlite (~/.local/share/... without XDG_DATA_HOME), created and seeded with demo data on first run."
    ))
    var db: String?

    @Option(help: "Where the domains keep data: sqlite (the database) or memory (deterministic fixtures, nothing written).")
    var backend: Backend = StoreConfiguration().backend

    @Option(help: ArgumentHelp(
        "A fixed clock, e.g. 2026-01-01T09:00:00Z: every timestamp and relative date becomes reproducible.",
        discussion: "Defaults to $SWITCHBOARD_NOW; without either, the system clock."
    ))
    var now: String?

    @Option(help: ArgumentHelp(
        "The IANA time zone a calendar agenda uses when a request names none, e.g. Europe/Berlin.",
        discussion: "Defaults to the host's zone (TZ or /etc/localtime)."
    ))
    var timeZone: String?

    @Option(help: "The mail account a bare mail call uses before mail.login (default: the demo account).")
    var account: String?

    @Option(help: "How many feed items the demo data holds (when seeding).")
    var feedItems: Int = StoreConfiguration().feedItems

    @Option(help: "How many messages the demo mailbox holds (when seeding).")
    var mailMessages: Int = StoreConfiguration().mailMessages

    @Option(help: "How many one-off events the demo calendar holds besides its fixed ones (when seeding).")
    var calendarEvents: Int = StoreConfiguration().calendarEvents

    var configuration: StoreConfiguration {
        StoreConfiguration(db: db, backend: backend, now: now, account: account, feedItems: feedItems, mailMessages: mailMessages,
                           calendarEvents: calendarEvents, timeZone: timeZone)
    }

    func validate() throws {
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.message)
        }
    }
}

extension StoreConfiguration.Backend: ExpressibleByArgument {}
