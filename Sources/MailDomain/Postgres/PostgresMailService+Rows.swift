import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// Reading and writing message rows and counters: the SQL the writes share.
extension PostgresMailService {
    static let recordColumns = """
        account, uid, thread_id, folder, from_addr, to_addrs, cc_addrs, subject, body, in_reply_to, date_ms, read, folder_seq
        """

    /// The records `query` selects (its columns are ``recordColumns``), in its order.
    static func records(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [MailRecord] {
        var records: [MailRecord] = []
        for try await row in try await connection.query(query, logger: logger) { records.append(try record(row)) }
        return records
    }

    /// The record in `row`, whose columns from `offset` on are ``recordColumns``.
    static func record(_ row: PostgresRow, offset: Int = 0) throws -> MailRecord {
        let cells = Array(row)
        func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type) throws -> T { try cells[offset + index].decode(type) }
        return MailRecord(
            account: try cell(0, String.self), uid: try cell(1, String.self), threadId: try cell(2, String.self),
            folder: Folder(rawValue: try cell(3, String.self)) ?? .inbox, from: try cell(4, String.self),
            to: addresses(try cell(5, String.self)), cc: addresses(try cell(6, String.self)), subject: try cell(7, String.self),
            text: try cell(8, String.self), inReplyTo: try cell(9, String?.self), time: try cell(10, Int64.self),
            read: try cell(11, Bool.self), folderSeq: try cell(12, Int64.self))
    }

    static func addresses(_ joined: String) -> [String] {
        joined.isEmpty ? [] : joined.split(separator: "\n").map(String.init)
    }

    static func record(_ connection: PostgresConnection, account: String, uid: String, logger: Logger) async throws -> MailRecord? {
        try await records(connection,
            "SELECT \(unescaped: recordColumns) FROM mail_message WHERE account = \(account) AND uid = \(uid)", logger: logger).first
    }

    static func account(_ connection: PostgresConnection, email: String, logger: Logger) async throws -> Account? {
        let rows = try await connection.query("SELECT email, name FROM mail_account WHERE email = \(email)", logger: logger)
        for try await (email, name) in rows.decode((String, String?).self) { return Account(email: email, name: name) }
        return nil
    }

    /// The row id and record of each message `uids` names, once each, in the order named; or
    /// ``ServiceError/notFound(kind:id:)`` for the first unknown one.
    static func rows(of uids: [String], account: String, _ connection: PostgresConnection, logger: Logger) async throws -> [(id: Int64, record: MailRecord)] {
        var stored: [String: (id: Int64, record: MailRecord)] = [:]
        let rows = try await connection.query(
            "SELECT id, \(unescaped: recordColumns) FROM mail_message WHERE account = \(account) AND uid = ANY(\(uids))", logger: logger)
        for try await row in rows {
            let record = try record(row, offset: 1)
            stored[record.uid] = (try row.decode(Int64.self), record)
        }
        var found: [(id: Int64, record: MailRecord)] = []
        var seen = Set<Int64>()
        for uid in uids {
            guard let row = stored[uid] else { throw ServiceError.notFound(kind: "message", id: uid) }
            if seen.insert(row.id).inserted { found.append(row) }
        }
        return found
    }

    /// Inserts message rows, a batch per statement, with their folded search columns.
    static func insert(_ records: [MailRecord], _ connection: PostgresConnection, logger: Logger) async throws {
        let batch = 1_000
        for start in stride(from: 0, to: records.count, by: batch) {
            let part = records[start..<min(start + batch, records.count)]
            try await connection.query("""
                INSERT INTO mail_message(\(unescaped: recordColumns), search_subject, search_from_addr, search_body)
                SELECT a, u, t, f, fr, tt, cc, s, b, CASE WHEN nr THEN NULL ELSE r END, d, rd, q,
                       fs, ff, fb
                FROM unnest(\(part.map(\.account)), \(part.map(\.uid)), \(part.map(\.threadId)), \(part.map(\.folder.rawValue)),
                            \(part.map(\.from)), \(part.map { $0.to.joined(separator: "\n") }), \(part.map { $0.cc.joined(separator: "\n") }),
                            \(part.map(\.subject)), \(part.map(\.text)), \(part.map { $0.inReplyTo ?? "" }), \(part.map { $0.inReplyTo == nil }),
                            \(part.map(\.time)), \(part.map(\.read)), \(part.map(\.folderSeq)),
                            \(part.map { SearchQuery.folded($0.subject) }), \(part.map { SearchQuery.folded($0.from) }),
                            \(part.map { SearchQuery.folded($0.text) }))
                     AS v(a, u, t, f, fr, tt, cc, s, b, r, nr, d, rd, q, fs, ff, fb)
                """, logger: logger)
        }
    }

    // MARK: Counters

    /// Locks the mail sequence row until the transaction ends (mail writers take turns, as on SQLite)
    /// and returns its value: every mail write calls this first.
    static func lockSequence(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query("SELECT value FROM mail_counter WHERE name = 'sequence' FOR UPDATE", logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    static func counter(_ connection: PostgresConnection, _ name: String, logger: Logger) async throws -> Int64 {
        for try await value in try await connection.query("SELECT value FROM mail_counter WHERE name = \(name)", logger: logger).decode(Int64.self) {
            return value
        }
        return 0
    }

    static func setCounter(_ connection: PostgresConnection, _ name: String, _ value: Int64, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO mail_counter(name, value) VALUES (\(name), \(value))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """, logger: logger)
    }
}
