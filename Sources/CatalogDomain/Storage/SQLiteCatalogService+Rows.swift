import GRDB
import SwitchboardStorage

/// The rows of the catalog tables and the SQL that reads and writes them.
extension SQLiteCatalogService {
    static func sectors(_ db: Database, where filter: String, arguments: StatementArguments) throws -> [Sector] {
        let sql = """
            SELECT s.id, s.name, s.image_url, (SELECT count(*) FROM catalog_brochure b WHERE b.sector_id = s.id)
            FROM catalog_sector s \(filter)
            """
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
            try Sector(id: row.decode(atIndex: 0), name: row.decode(atIndex: 1), imageUrl: row.decode(atIndex: 2),
                       brochureCount: row.decode(atIndex: 3))
        }
    }

    static func sectorEntry(_ db: Database, id: Int64) throws -> SectorEntry? {
        let statement = try db.cachedStatement(sql: "SELECT id, name, image_url FROM catalog_sector WHERE id = ?")
        return try Row.fetchOne(statement, arguments: [id]).map { row in
            try SectorEntry(id: row.decode(atIndex: 0), name: row.decode(atIndex: 1), imageUrl: row.decode(atIndex: 2))
        }
    }

    /// Brochures matching `filter` (an SQL condition), in id order, at most `limit`.
    static func brochures(_ db: Database, where filter: String, arguments: StatementArguments, limit: Int) throws -> [Brochure] {
        let sql = "SELECT id, sector_id, title, retailer_name, cover_url FROM catalog_brochure WHERE \(filter) ORDER BY id LIMIT ?"
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments + [limit]).map { row in
            try Brochure(id: row.decode(atIndex: 0), sectorId: row.decode(atIndex: 1), title: row.decode(atIndex: 2),
                         retailerName: row.decode(atIndex: 3), coverUrl: row.decode(atIndex: 4))
        }
    }

    /// Inserts the entry, or updates the row of its id.
    static func store(_ entry: CatalogEntry, _ db: Database) throws {
        switch entry {
        case .sector(let sector):
            try db.cachedStatement(sql: """
                INSERT INTO catalog_sector(id, name, image_url) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, image_url = excluded.image_url
                """).execute(arguments: [sector.id, sector.name, sector.imageUrl])
        case .brochure(let brochure):
            try db.cachedStatement(sql: """
                INSERT INTO catalog_brochure(id, sector_id, title, retailer_name, cover_url, search_text) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET sector_id = excluded.sector_id, title = excluded.title,
                    retailer_name = excluded.retailer_name, cover_url = excluded.cover_url, search_text = excluded.search_text
                """).execute(arguments: [brochure.id, brochure.sectorId, brochure.title, brochure.retailerName, brochure.coverUrl,
                                         CatalogQuery.searchText(title: brochure.title, retailerName: brochure.retailerName)])
        }
    }
}
