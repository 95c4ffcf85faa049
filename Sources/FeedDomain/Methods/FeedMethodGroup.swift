import DomainMethods
import JSONRPC

extension MethodRegistry {
    /// The feed's methods, served by `feed`.
    public static func feedMethods(_ feed: any FeedService) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerDomain(FeedList.self) { params, _ in try await FeedList.run(params, feed: feed) }
        registry.registerDomain(FeedPage.self) { params, _ in try await FeedPage.run(params, feed: feed) }
        registry.registerDomain(FeedGet.self) { params, _ in try await FeedGet.run(params, feed: feed) }
        registry.registerDomain(FeedChanges.self) { params, _ in try await FeedChanges.run(params, feed: feed) }
        return registry
    }
}
