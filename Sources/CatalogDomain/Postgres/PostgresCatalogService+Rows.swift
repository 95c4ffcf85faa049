import PostgresNIO
import SwitchboardPostgres

/// The catalog's schema on PostgreSQL, its demo data, and the SQL that reads and writes its rows.
extension PostgresCatalogService {
    /// The catalog tables, domain `catalog`; `search_text` as on SQLite (``CatalogQuery/searchText(title:retailerName:)``).
    public static let migrations = PostgresMigrations(domain: catalogDomain, [
        PostgresMigration("catalog-v1", statements: [
            """
            CREATE TABLE catalog_sector (
                id BIGINT PRIMARY KEY CHECK (id >= 0),
                name TEXT NOT NULL,
                image_url TEXT
            )
            """,
            """
            CREATE TABLE catalog_brochure (
                id BIGINT PRIMARY KEY CHECK (id >= 0),
                sector_id BIGINT NOT NULL REFERENCES catalog_sector(id),
                title TEXT NOT NULL,
                retailer_name TEXT NOT NULL,
                cover_url TEXT,
                search_text TEXT NOT NULL
            )
            """,
            "CREATE INDEX catalog_brochure_sector ON catalog_brochure(sector_id, id)",
        ]),
    ])

    /// Writes the demo catalog (``DemoCatalog``) as the starting state, with a COPY per table and no
    /// change records, in the caller's transaction.
    public static func seed(_ connection: PostgresConnection, logger: Logger) async throws {
        var sectors: [SectorEntry] = []
        var brochures: [Brochure] = []
        for entry in DemoCatalog.entries() {
            switch entry {
            case .sector(let sector): sectors.append(sector)
            case .brochure(let brochure): brochures.append(brochure)
            }
        }
        try await PostgresCopy.rows(into: "catalog_sector", columns: ["id", "name", "image_url"], count: sectors.count,
                                    on: connection, logger: logger) { index, row in
            row.append(sectors[index].id)
            row.append(sectors[index].name)
            row.append(sectors[index].imageUrl)
        }
        try await PostgresCopy.rows(into: "catalog_brochure", columns: ["id", "sector_id", "title", "retailer_name", "cover_url", "search_text"],
                                    count: brochures.count, on: connection, logger: logger) { index, row in
            let brochure = brochures[index]
            row.append(brochure.id)
            row.append(brochure.sectorId)
            row.append(brochure.title)
            row.append(brochure.retailerName)
            row.append(brochure.coverUrl)
            row.append(CatalogQuery.searchText(title: brochure.title, retailerName: brochure.retailerName))
        }
    }

    /// The lock every catalog write takes first (``PostgresWriteLock``).
    static let writeLock = PostgresWriteLock(key: 0x5357_4341_544C_0001)

    static let brochureColumns = "id, sector_id, title, retailer_name, cover_url"

    /// Every sector (or the one of `id`) with its brochure count.
    static func sectors(_ connection: PostgresConnection, id: Int64?, logger: Logger) async throws -> [Sector] {
        let rows = try await connection.query("""
            SELECT s.id, s.name, s.image_url, (SELECT count(*) FROM catalog_brochure b WHERE b.sector_id = s.id)
            FROM catalog_sector s WHERE \(id)::bigint IS NULL OR s.id = \(id)
            """, logger: logger)
        var sectors: [Sector] = []
        for try await (id, name, imageUrl, count) in rows.decode((Int64, String, String?, Int64).self) {
            sectors.append(Sector(id: id, name: name, imageUrl: imageUrl, brochureCount: Int(count)))
        }
        return sectors
    }

    /// The brochures a query of ``brochureColumns`` returns, in its order.
    static func brochures(_ connection: PostgresConnection, query: PostgresQuery, logger: Logger) async throws -> [Brochure] {
        var brochures: [Brochure] = []
        for try await (id, sectorId, title, retailerName, coverUrl) in try await connection.query(query, logger: logger)
            .decode((Int64, Int64, String, String, String?).self) {
            brochures.append(Brochure(id: id, sectorId: sectorId, title: title, retailerName: retailerName, coverUrl: coverUrl))
        }
        return brochures
    }

    /// What is stored under the ids of `batch`.
    static func stored(_ batch: [CatalogEntry], _ connection: PostgresConnection, logger: Logger)
        async throws -> (sectors: [Int64: SectorEntry], brochures: [Int64: Brochure]) {
        var sectorIDs: [Int64] = [], brochureIDs: [Int64] = []
        for entry in batch {
            switch entry {
            case .sector(let sector): sectorIDs.append(sector.id)
            case .brochure(let brochure): brochureIDs.append(brochure.id)
            }
        }
        var sectors: [Int64: SectorEntry] = [:]
        if !sectorIDs.isEmpty {
            let rows = try await connection.query("SELECT id, name, image_url FROM catalog_sector WHERE id = ANY(\(sectorIDs))", logger: logger)
            for try await (id, name, imageUrl) in rows.decode((Int64, String, String?).self) {
                sectors[id] = SectorEntry(id: id, name: name, imageUrl: imageUrl)
            }
        }
        var brochures: [Int64: Brochure] = [:]
        if !brochureIDs.isEmpty {
            for brochure in try await Self.brochures(connection, query: """
                SELECT \(unescaped: brochureColumns) FROM catalog_brochure WHERE id = ANY(\(brochureIDs))
                """, logger: logger) {
                brochures[brochure.id] = brochure
            }
        }
        return (sectors, brochures)
    }

    /// Inserts the entry, or updates the row of its id.
    static func store(_ entry: CatalogEntry, _ connection: PostgresConnection, logger: Logger) async throws {
        switch entry {
        case .sector(let sector):
            try await connection.query("""
                INSERT INTO catalog_sector(id, name, image_url) VALUES (\(sector.id), \(sector.name), \(sector.imageUrl))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, image_url = excluded.image_url
                """, logger: logger)
        case .brochure(let brochure):
            let searchText = CatalogQuery.searchText(title: brochure.title, retailerName: brochure.retailerName)
            try await connection.query("""
                INSERT INTO catalog_brochure(id, sector_id, title, retailer_name, cover_url, search_text)
                VALUES (\(brochure.id), \(brochure.sectorId), \(brochure.title), \(brochure.retailerName), \(brochure.coverUrl), \(searchText))
                ON CONFLICT (id) DO UPDATE SET sector_id = excluded.sector_id, title = excluded.title,
                    retailer_name = excluded.retailer_name, cover_url = excluded.cover_url, search_text = excluded.search_text
                """, logger: logger)
        }
    }
}
