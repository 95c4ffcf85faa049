import DomainMethods
import JSONRPC
import SwitchboardCore

extension MethodRegistry {
    /// The catalog's methods, served by `catalog` (opened on the first call when the backend opens it
    /// lazily); `readRoots` are the folders `catalog.import` may read files from (none by default);
    /// `subscriptions`, when given, serves `catalog.subscribe`.
    public static func catalogMethods(_ catalog: LazyService<any CatalogService>, readRoots: ReadRoots = .empty,
                                      subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerDomain(CatalogSectors.self) { params, _ in try await CatalogSectors.run(params, catalog: catalog.get()) }
        registry.registerDomain(CatalogBrochures.self) { params, _ in try await CatalogBrochures.run(params, catalog: catalog.get()) }
        registry.registerDomain(CatalogGet.self) { params, _ in try await CatalogGet.run(params, catalog: catalog.get()) }
        registry.registerDomain(CatalogSearch.self) { params, _ in try await CatalogSearch.run(params, catalog: catalog.get()) }
        registry.registerDomain(CatalogImport.self) { params, context in
            try await CatalogImport.run(params, catalog: catalog.get(), roots: readRoots, context: context)
        }
        registry.registerDomain(CatalogChanges.self) { params, _ in try await CatalogChanges.run(params, catalog: catalog.get()) }
        if let subscriptions {
            registry.registerSubscriptions(CatalogSubscribe.self, CatalogUnsubscribe.self, namespace: "catalog", hub: subscriptions) { _, _ in
                ChangeHintFeed(method: "catalog.changed", state: { try await catalog.get().state() },
                               changes: { since, limit in try await catalog.get().changes(since: since, limit: limit) })
            }
        }
        return registry
    }

    /// The catalog's methods, served by `catalog`, open already.
    public static func catalogMethods(_ catalog: any CatalogService, readRoots: ReadRoots = .empty,
                                      subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        catalogMethods(LazyService(catalog), readRoots: readRoots, subscriptions: subscriptions)
    }
}
