import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import MailDomain
import SwitchboardCore

/// The in-memory backend (`--backend memory`): deterministic fixtures, nothing written.
struct MemoryBackend: StoreBackend {
    let options: StoreConfiguration
    let clock: any WallClock
    /// Posted after every write.
    let signal: ChangeSignal

    func openFeed() throws -> any FeedService {
        InMemoryFeedService(demoCount: options.feedItems, signal: signal)
    }

    func openMail() throws -> any MailService {
        InMemoryMailService(clock: clock, demoMessages: options.mailMessages, signal: signal)
    }

    func openChat() throws -> any ChatService {
        InMemoryChatService(clock: clock, signal: signal)
    }

    func openCatalog() throws -> any CatalogService {
        InMemoryCatalogService(signal: signal)
    }

    func openCalendar() throws -> any CalendarService {
        InMemoryCalendarService(events: DemoSeed.demoCalendar(options, clock: clock), signal: signal)
    }
}
