import ArgumentParser
import ChatDomain
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the domains keep their data and what time it is: the `--db`, `--backend`, `--now`, … flags
/// of `serve`, `call` and `seed`, read into a ``StoreConfiguration``.
struct StoreOptions: ParsableArguments {
    typealias Backend = StoreConfiguration.Backend

    @Option(help: ArgumentHelp(
        "SQLite database file, :memory: for a throwaway one, or a PostgreSQL URL (postgres://user@host:port/db?sslmode=...).",
        discussion: "Default: $SWITCHBOARD_DATABASE_URL when set (a PostgreSQL URL; PGHOST, PGPORT, PGUSER, PGPASSWORD, ~/.pgpass... fill what it leaves out, as for psql), else $XDG_DATA_HOME/switchboard/switchboard.sqlite (~/.local/share/... without XDG_DATA_HOME), created and seeded with demo data on first run. See docs/postgres.md."
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

    @Option(help: ArgumentHelp(
        "Events a subscription keeps while the client is not reading; past it the subscription is dropped with host.subscriptionDropped.",
        discussion: "Hints such as mail.changed are coalesced and never count against it."
    ))
    var maxSubscriptionQueue: Int = StoreConfiguration().maxSubscriptionQueue

    @Option(help: ArgumentHelp(
        "Make the chat service fail on purpose: rate-limit, server-error or slow.",
        discussion: "rate-limit: every chat request answers -32029 with data.resetAt (a minute after the clock) and data.retryAfterMs. server-error: every chat request answers -32060 with a data.debugId that the stderr log line names too. slow: each chat.send stays pending until the next chat request, or 2 s. Meant for --backend memory; works on either."
    ))
    var simulate: ChatSimulation?

    @Option(help: ArgumentHelp(
        "The chat user this process acts as (default: u0, the demo user).",
        discussion: "Run a second process as another user (u1 is ada) on the same --db, and the two can chat."
    ))
    var chatUser: String = StoreConfiguration().chatUser

    @Option(help: "How many one-off events the demo calendar holds besides its fixed ones (when seeding).")
    var calendarEvents: Int = StoreConfiguration().calendarEvents

    var configuration: StoreConfiguration {
        StoreConfiguration(db: db, backend: backend, now: now, account: account, feedItems: feedItems, mailMessages: mailMessages,
                           maxSubscriptionQueue: maxSubscriptionQueue, simulate: simulate, chatUser: chatUser,
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
extension ChatSimulation: ExpressibleByArgument {}
