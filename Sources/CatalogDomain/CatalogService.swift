import SwitchboardCore

/// The catalog: sectors, each holding brochures, read by sector, by id or by search, and filled by
/// imports of the shopping app's backend format.
///
/// Two implementations answer alike: ``InMemoryCatalogService`` (the demo catalog, deterministic)
/// and ``SQLiteCatalogService`` (GRDB). Services store and fetch; the rules live above them, once:
/// the order of sectors (``SectorOrder``, by the reader's locale), what an import creates or updates
/// (``CatalogMerge``), what a search matches (``CatalogQuery``).
///
/// - Important: Change tracking counts sectors and brochures as `sector/ID` and `brochure/ID`:
///   import writes are `created` or `updated` (an unchanged item records nothing). Writes and their
///   change records share a transaction, the answer carries the state read in it (``Committed``),
///   and the service's ``ChangeSignal`` is posted after each commit.
public protocol CatalogService: Sendable {
    /// Every sector with its brochure count, in no particular order.
    func sectors() async throws -> [Sector]
    func sector(id: Int64) async throws -> Sector?
    /// Up to `limit` brochures with ids greater than `afterID`, in id order; of one sector, or of all.
    func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure]
    func brochure(id: Int64) async throws -> Brochure?
    /// Up to `limit` brochures matching `query` with ids greater than `afterID`, in id order.
    func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure]
    /// Stores a batch of an import in one transaction, sectors and brochures in the order given
    /// (a sector before its brochures): new ids are created, known ones updated where they differ.
    func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts>
    /// The domain's change-tracking state.
    func state() async throws -> String
    /// Sectors and brochures (`sector/ID`, `brochure/ID`) created or updated since `sinceState`, at most `limit`.
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet
}

/// The change-log item ids of the catalog.
enum CatalogItemID {
    static func sector(_ id: Int64) -> String { "sector/\(id)" }
    static func brochure(_ id: Int64) -> String { "brochure/\(id)" }
}
