import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteMailService {
    /// Writes the demo mailbox of ``DemoAccount`` (``DemoMail``, dated back from `clock`) as the
    /// starting state: no change records, conversation rows and folder counts built as it goes.
    /// Reports the messages written every 1,000 and at the end.
    ///
    /// - Precondition: the demo account has no mail yet (a fresh database).
    public static func seed(_ db: Database, clock: any WallClock, messages: Int = DemoMail.defaultCount,
                            progress: (Int) -> Void = { _ in }) throws {
        let account = DemoAccount.email
        try db.execute(sql: "INSERT OR IGNORE INTO mail_account(email, name) VALUES (?, ?)", arguments: [account, DemoAccount.name])
        var written = 0
        try DemoMail.generate(messages: messages, now: clock.now()) { thread in
            for record in thread { try insertRow(record, db) }
            for (group, summary) in ConversationSummary.listing(of: thread) { try writeSummary(summary, group: group, sequence: 0, db) }
            let before = written
            written += thread.count
            if written / 1_000 != before / 1_000 { progress(written) }
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO mail_folder_count(account, folder, total, unread)
            SELECT account, folder, sum(message_count), sum(unread_count) FROM mail_conversation WHERE account = ? GROUP BY folder
            """, arguments: [account])
        progress(written)
    }
}
