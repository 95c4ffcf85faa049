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
    ///
    /// It walks the table by id, `batch` messages at a time: each batch is found without a lock, then
    /// rewritten in a transaction that first takes the mail sequence lock every mail write takes, so
    /// a write waits for one batch at most and never deadlocks with it on the rows. The columns folded
    /// follow from the subject, sender and body, which no write changes once a message is stored: a
    /// batch found a moment before it is rewritten is still right, and one folded twice (two hosts
    /// opening at once) is folded the same.
    @discardableResult
    public static func refoldSearch(_ store: PostgresStore, batch: Int = refoldBatch, logger: Logger) async throws -> Int {
        let done = try await store.read { try await counter($0, "search_folding", logger: logger) }
        guard done < searchFolding else { return 0 }
        var after: Int64 = 0, folded = 0
        while true {
            try Task.checkCancellation()
            let start = after
            let rows = try await store.read { connection in try await stale(after: start, limit: batch, connection, logger: logger) }
            guard let last = rows.last?.id else { break }
            try await store.write { connection in
                _ = try await lockSequence(connection, logger: logger)
                try await refold(rows, connection, logger: logger)
            }
            folded += rows.count
            after = last
        }
        try await store.write { try await setCounter($0, "search_folding", searchFolding, logger: logger) }
        return folded
    }

    /// Messages folded again per transaction (their bodies are read whole).
    public static let refoldBatch = 100

    /// The next `limit` messages after id `after` that hold the older folding, in id order.
    private static func stale(after: Int64, limit: Int, _ connection: PostgresConnection,
                              logger: Logger) async throws -> [(id: Int64, subject: String, from: String, text: String)] {
        var rows: [(id: Int64, subject: String, from: String, text: String)] = []
        let found = try await connection.query("""
            SELECT id, subject, from_addr, body FROM mail_message
            WHERE id > \(after) AND (search_subject ~ \(SearchTokens.olderFoldingPattern)
               OR search_from_addr ~ \(SearchTokens.olderFoldingPattern) OR search_body ~ \(SearchTokens.olderFoldingPattern))
            ORDER BY id LIMIT \(Int64(max(1, limit)))
            """, logger: logger)
        for try await row in found.decode((Int64, String, String, String).self) { rows.append((row.0, row.1, row.2, row.3)) }
        return rows
    }

    /// Writes the search columns of `rows` folded now.
    private static func refold(_ rows: [(id: Int64, subject: String, from: String, text: String)], _ connection: PostgresConnection,
                               logger: Logger) async throws {
        try await connection.query("""
            UPDATE mail_message AS m SET search_subject = v.fs, search_from_addr = v.ff, search_body = v.fb
            FROM unnest(\(rows.map(\.id)), \(rows.map { SearchQuery.folded($0.subject) }),
                        \(rows.map { SearchQuery.folded($0.from) }), \(rows.map { SearchQuery.folded($0.text) }))
                 AS v(id, fs, ff, fb)
            WHERE m.id = v.id
            """, logger: logger)
    }
}
