import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import MailDomain

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
