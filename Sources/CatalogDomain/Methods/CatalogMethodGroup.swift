import DomainMethods
import JSONRPC
import SwitchboardCore

extension MethodRegistry {
    /// The catalog's methods, served by `catalog`; `readRoots` are the folders `catalog.import` may
    /// read files from (none by default).
    public static func catalogMethods(_ catalog: any CatalogService, readRoots: ReadRoots = .empty) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerDomain(CatalogSectors.self) { params, _ in try await CatalogSectors.run(params, catalog: catalog) }
        registry.registerDomain(CatalogBrochures.self) { params, _ in try await CatalogBrochures.run(params, catalog: catalog) }
        registry.registerDomain(CatalogGet.self) { params, _ in try await CatalogGet.run(params, catalog: catalog) }
        registry.registerDomain(CatalogSearch.self) { params, _ in try await CatalogSearch.run(params, catalog: catalog) }
        registry.registerDomain(CatalogImport.self) { params, context in
            try await CatalogImport.run(params, catalog: catalog, roots: readRoots, context: context)
        }
        registry.registerDomain(CatalogChanges.self) { params, _ in try await CatalogChanges.run(params, catalog: catalog) }
        return registry
    }
}
