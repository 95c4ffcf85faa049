import GRDB
import SwitchboardStorage

extension SQLiteMailService {
    /// `mail-v2-search-folding`: the search index folds case and diacritics (`remove_diacritics 2`),
    /// as ``SearchQuery/tokens(_:)`` folds the query and the in-memory service the text, so `café`,
    /// `cafe\u{301}` and `cafe` find each other. The index is rebuilt from `mail_message`.
    static let searchFoldingMigration = DatabaseMigration("mail-v2-search-folding") { db in
        try db.execute(sql: """
            DROP TABLE mail_search;
            CREATE VIRTUAL TABLE mail_search USING fts5(
                from_addr, subject, body,
                content = 'mail_message', content_rowid = 'id',
                tokenize = 'unicode61 remove_diacritics 2'
            );
            INSERT INTO mail_search(mail_search) VALUES ('rebuild');
            """)
    }
}
