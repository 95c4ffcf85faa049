import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import MailDomain
import SwitchboardCore

/// The in-memory backend (`--backend memory`): deterministic fixtures, nothing written.
struct MemoryBackend: StoreBackend {
    private let context: BackendContext

    init(_ context: BackendContext) {
        self.context = context
    }

    func openFeed() throws -> any FeedService {
        InMemoryFeedService(demoCount: context.options.feedItems, signal: context.signal)
    }

    func openMail() throws -> any MailService {
        InMemoryMailService(clock: context.clock, demoMessages: context.options.mailMessages, signal: context.signal)
    }

    func openChat() throws -> any ChatService {
        InMemoryChatService(clock: context.clock, signal: context.signal)
    }

    func openCatalog() throws -> any CatalogService {
        InMemoryCatalogService(signal: context.signal)
    }

    func openCalendar() throws -> any CalendarService {
        InMemoryCalendarService(events: DemoSeed.demoCalendar(context.options, clock: context.clock), signal: context.signal)
    }
}
