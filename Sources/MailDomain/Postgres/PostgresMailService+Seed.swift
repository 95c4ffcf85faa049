import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresMailService {
    /// Writes the demo mailbox of ``DemoAccount`` (``DemoMail``, dated back from `clock`: the ids and
    /// content ``SQLiteMailService/seed(_:clock:messages:progress:)`` writes) as the starting state, in
    /// the caller's transaction: no change records, listing rows and folder counts built as it goes,
    /// a batch of rows per statement. Reports the messages written after each batch.
    ///
    /// - Precondition: the demo account has no mail yet (a fresh database).
    public static func seed(_ connection: PostgresConnection, clock: any WallClock, messages: Int = DemoMail.defaultCount,
                            logger: Logger, progress: (Int) -> Void = { _ in }) async throws {
        try await connection.query("""
            INSERT INTO mail_account(email, name) VALUES (\(DemoAccount.email), \(DemoAccount.name)) ON CONFLICT (email) DO NOTHING
            """, logger: logger)
        var written = 0
        var records: [MailRecord] = []
        var listing: [(group: GroupKey, summary: ConversationSummary)] = []
        func flush() async throws {
            try await insert(records, connection, logger: logger)
            try await writeSummaries(listing, sequence: 0, connection, logger: logger)
            written += records.count
            records.removeAll(keepingCapacity: true)
            listing.removeAll(keepingCapacity: true)
            progress(written)
        }
        var threads: [[MailRecord]] = []
        DemoMail.generate(messages: messages, now: clock.now()) { threads.append($0) }
        for thread in threads {
            try Task.checkCancellation()
            records += thread
            listing += ConversationSummary.listing(of: thread)
            if records.count >= 1_000 { try await flush() }
        }
        try await flush()
        try await connection.query("""
            INSERT INTO mail_folder_count(account, folder, total, unread)
            SELECT account, folder, sum(message_count), sum(unread_count) FROM mail_conversation WHERE account = \(DemoAccount.email)
            GROUP BY account, folder
            ON CONFLICT (account, folder) DO UPDATE SET total = excluded.total, unread = excluded.unread
            """, logger: logger)
    }
}
