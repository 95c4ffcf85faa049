import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresMailService {
    /// The search folding the folded columns hold once ``refoldSearch(_:logger:)`` ran: 2 folds `İ`,
    /// `ς`, `ſ` and `ẛ` as FTS5's `unicode61` does (``SearchTokens``); rows an older switchboard
    /// stored keep those letters (and `İ`'s combining dot), which queries folded now would not match.
    static let searchFolding: Int64 = 2

    /// Folds again, once per database, the search columns of messages an older switchboard stored, so
    /// search finds them as it finds new ones; then notes in `mail_counter` that it ran. Not a
    /// migration: older hosts still open the database (what they store afterwards keeps their folding).
    /// Returns how many messages it folded again; writes nothing when the note is there.
    @discardableResult
    public static func refoldSearch(_ store: PostgresStore, logger: Logger) async throws -> Int {
        let done = try await store.read { try await counter($0, "search_folding", logger: logger) }
        guard done < searchFolding else { return 0 }
        return try await store.write { connection in
            _ = try await lockSequence(connection, logger: logger)
            guard try await counter(connection, "search_folding", logger: logger) < searchFolding else { return 0 }
            var rows: [(id: Int64, subject: String, from: String, text: String)] = []
            let found = try await connection.query("""
                SELECT id, subject, from_addr, body FROM mail_message
                WHERE search_subject ~ \(SearchTokens.olderFoldingPattern) OR search_from_addr ~ \(SearchTokens.olderFoldingPattern)
                   OR search_body ~ \(SearchTokens.olderFoldingPattern)
                """, logger: logger)
            for try await row in found.decode((Int64, String, String, String).self) {
                try Task.checkCancellation()
                rows.append((row.0, row.1, row.2, row.3))
            }
            let batch = 1_000
            for start in stride(from: 0, to: rows.count, by: batch) {
                let part = rows[start..<min(start + batch, rows.count)]
                try await connection.query("""
                    UPDATE mail_message AS m SET search_subject = v.fs, search_from_addr = v.ff, search_body = v.fb
                    FROM unnest(\(part.map(\.id)), \(part.map { SearchQuery.folded($0.subject) }),
                                \(part.map { SearchQuery.folded($0.from) }), \(part.map { SearchQuery.folded($0.text) }))
                         AS v(id, fs, ff, fb)
                    WHERE m.id = v.id
                    """, logger: logger)
            }
            try await setCounter(connection, "search_folding", searchFolding, logger: logger)
            return rows.count
        }
    }
}
