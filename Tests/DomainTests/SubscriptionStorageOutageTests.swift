import CatalogDomain
import DomainMethods
import Jansson
import JSONRPC
import Synchronization
import SwitchboardCore
import Testing

/// A subscription whose storage is away for a while (a lost PostgreSQL connection) is not dropped: it
/// keeps its position and reads on at the next wake-up, delivering what changed meanwhile.
@Suite("Subscriptions through a storage outage")
struct SubscriptionStorageOutageTests {
    /// The in-memory catalog, whose first `changes` after ``failNext()`` answers `storageUnavailable`;
    /// every `changes` call is reported on ``calls``.
    final class FlakyCatalog: CatalogServiceWrapper {
        let inner: InMemoryCatalogService
        var base: any CatalogService { inner }
        private let failing = Mutex(false)
        let calls: AsyncStream<Bool>
        private let continuation: AsyncStream<Bool>.Continuation

        init(signal: ChangeSignal) {
            inner = InMemoryCatalogService(demo: false, signal: signal)
            (calls, continuation) = AsyncStream.makeStream(of: Bool.self)
        }

        func failNext() { failing.withLock { $0 = true } }

        func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
            let fail = failing.withLock { failing in
                defer { failing = false }
                return failing
            }
            defer { continuation.yield(!fail) }
            if fail { throw ServiceError.storageUnavailable(path: "postgres://u:***@db:5432/team", cause: "the connection was lost") }
            return try await inner.changes(since: sinceState, limit: limit)
        }
    }

    @Test("a storage error while reading changes keeps the subscription: it reads again at the next change, nothing is dropped",
          .timeLimit(.minutes(10)))
    func keepsSubscription() async throws {
        let signal = ChangeSignal()
        let catalog = FlakyCatalog(signal: signal)
        let client = MailRPCClient(try MethodRegistry.catalogMethods(catalog, subscriptions: SubscriptionHub(signal: signal)).freeze())
        var calls = catalog.calls.makeAsyncIterator()
        let subscription = try #require(try await client.result("catalog.subscribe")["subscriptionId"])

        #expect(await calls.next() == true, "the subscription's first read, at its start")
        catalog.failNext()
        _ = try await client.result("catalog.import", ["document": ["sectors": [backendSector(1, name: "A")]]])
        #expect(await calls.next() == false, "the first read failed")
        _ = try await client.result("catalog.import", ["document": ["sectors": [backendSector(2, name: "B")]]])
        // The subscription read again at the second change (before the fix it had been dropped: no read).
        while let read = await calls.next(), !read {}

        let unsubscribed = try await client.result("catalog.unsubscribe", ["subscriptionId": subscription])
        #expect(unsubscribed["unsubscribed"] == true)
        let methods = client.notifications.compactMap { $0["method"]?.stringValue }
        #expect(!methods.contains("host.subscriptionDropped"), "\(client.notifications)")
    }
}
