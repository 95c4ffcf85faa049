import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import Logging
import MailDomain
import SwitchboardCore

/// Where the domains keep their data, chosen once at start (`--backend`, `--db`): one type per
/// backend that opens each domain's service, as GRDB's `DatabaseWriter` or Hummingbird's persist
/// drivers stand for their stores. ``DomainServices`` calls each `open` on that domain's first
/// request, on a thread of its own, so a call opens only the domain it needs.
///
/// A backend is this type plus, per domain, the service type that holds its rules in its SQL (or
/// memory): `SQLiteFeedService`, `InMemoryFeedService`. The method layer never sees which.
///
/// - Important: Each `open` may block (a file lock, migrations, seeding), is called at most once at
///   a time per domain, and again after a failure. What the domains share (one database file, one
///   connection pool) is opened once by the backend, on the first domain's opening.
protocol StoreBackend: Sendable {
    func openFeed() throws -> any FeedService
    func openMail() throws -> any MailService
    func openChat() throws -> any ChatService
    func openCatalog() throws -> any CatalogService
    func openCalendar() throws -> any CalendarService
}

/// What every backend is opened with, made once by ``DomainServices`` (or `switchboard seed`).
struct BackendContext: Sendable {
    let options: StoreConfiguration
    let clock: any WallClock
    let logger: Logger
    /// Seeding progress, for requests that wait on an opening.
    let progress: SeedProgress
    /// Posted after every write of this process, and of other processes when ``followsOtherProcesses``.
    let signal: ChangeSignal
    /// Whether other processes' writes post ``signal`` (a watcher thread on SQLite, a `LISTEN`
    /// connection on PostgreSQL). A one-shot call has none: nothing can be subscribed once it has answered.
    let followsOtherProcesses: Bool
}
