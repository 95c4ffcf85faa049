import DomainMethods
import JSONRPC

extension MethodRegistry {
    /// The feed's methods, served by `feed` (opened on the first call when the backend opens it lazily).
    public static func feedMethods(_ feed: LazyService<any FeedService>) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerDomain(FeedList.self) { params, _ in try await FeedList.run(params, feed: feed.get()) }
        registry.registerDomain(FeedPage.self) { params, _ in try await FeedPage.run(params, feed: feed.get()) }
        registry.registerDomain(FeedGet.self) { params, _ in try await FeedGet.run(params, feed: feed.get()) }
        registry.registerDomain(FeedChanges.self) { params, _ in try await FeedChanges.run(params, feed: feed.get()) }
        return registry
    }

    /// The feed's methods, served by `feed`, open already.
    public static func feedMethods(_ feed: any FeedService) -> MethodRegistry { feedMethods(LazyService(feed)) }
}
