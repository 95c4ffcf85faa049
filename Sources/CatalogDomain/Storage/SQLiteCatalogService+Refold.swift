import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteCatalogService {
    /// Folds again the `search_text` of brochures an older switchboard folded
    /// (``SearchTokens/olderFoldingScalars``), so a search finds them as it finds new ones; returns
    /// how many. Run when the catalog opens: a catalog holds thousands of brochures, so the look costs
    /// little; it writes only when it finds some, and what an older host sharing the file stores later
    /// is found the next time.
    public static func refoldSearch(_ database: AppDatabase) async throws -> Int {
        guard try database.read({ try !stale($0).isEmpty }) else { return 0 }
        return try await database.write { db in
            let stale = try stale(db)
            for brochure in stale {
                try db.execute(sql: "UPDATE catalog_brochure SET search_text = ? WHERE id = ?", arguments: [brochure.text, brochure.id])
            }
            return stale.count
        }
    }

    /// The brochures folded the older way, each with its text folded now.
    private static func stale(_ db: Database) throws -> [(id: Int64, text: String)] {
        let condition = SearchTokens.olderFoldingScalars.map { _ in "instr(search_text, ?) > 0" }.joined(separator: " OR ")
        let arguments = StatementArguments(SearchTokens.olderFoldingScalars.map { String($0) })
        return try Row.fetchAll(db, sql: "SELECT id, title, retailer_name FROM catalog_brochure WHERE \(condition)", arguments: arguments)
            .map { ($0["id"], CatalogQuery.searchText(title: $0["title"], retailerName: $0["retailer_name"])) }
    }
}
