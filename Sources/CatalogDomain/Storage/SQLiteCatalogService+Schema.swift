import GRDB
import SwitchboardStorage

extension SQLiteCatalogService {
    /// The catalog tables. `search_text` holds each brochure's ``CatalogQuery/searchText(title:retailerName:)``,
    /// kept by every write; a search scans it (a catalog holds thousands of brochures, not millions).
    public static let migrations = [
        DatabaseMigration("catalog-v1") { db in
            try db.execute(sql: """
                CREATE TABLE catalog_sector (
                    id INTEGER PRIMARY KEY CHECK (id >= 0),
                    name TEXT NOT NULL,
                    image_url TEXT
                );
                CREATE TABLE catalog_brochure (
                    id INTEGER PRIMARY KEY CHECK (id >= 0),
                    sector_id INTEGER NOT NULL REFERENCES catalog_sector(id),
                    title TEXT NOT NULL,
                    retailer_name TEXT NOT NULL,
                    cover_url TEXT,
                    search_text TEXT NOT NULL
                );
                CREATE INDEX catalog_brochure_sector ON catalog_brochure(sector_id, id);
                """)
        },
    ]
}
