import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteMailService {
    /// The mail tables. `mail_conversation` is the listing, one row per conversation per folder kept
    /// by every write, so a page is an index range scan and never a `GROUP BY` over the mailbox.
    public static let migrations = [
        DatabaseMigration("mail-v1") { db in
            try db.execute(sql: """
                CREATE TABLE mail_account (
                    email TEXT PRIMARY KEY,
                    name TEXT
                );
                -- Address lists are joined with newlines (addresses never hold one).
                CREATE TABLE mail_message (
                    id INTEGER PRIMARY KEY,
                    account TEXT NOT NULL,
                    uid TEXT NOT NULL,
                    thread_id TEXT NOT NULL,
                    folder TEXT NOT NULL,
                    from_addr TEXT NOT NULL,
                    to_addrs TEXT NOT NULL,
                    cc_addrs TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    body TEXT NOT NULL,
                    in_reply_to TEXT,
                    date_ms INTEGER NOT NULL,
                    read INTEGER NOT NULL,
                    folder_seq INTEGER NOT NULL,
                    UNIQUE (account, uid)
                );
                CREATE INDEX mail_message_thread ON mail_message(account, thread_id, folder);
                CREATE INDEX mail_message_reply ON mail_message(account, in_reply_to) WHERE in_reply_to IS NOT NULL;
                -- One row per (account, folder, thread): the inbox listing.
                CREATE TABLE mail_conversation (
                    account TEXT NOT NULL,
                    folder TEXT NOT NULL,
                    thread_id TEXT NOT NULL,
                    latest_date INTEGER NOT NULL,
                    latest_uid TEXT NOT NULL,
                    latest_from TEXT NOT NULL,
                    latest_snippet TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    participants TEXT NOT NULL,
                    message_count INTEGER NOT NULL,
                    unread_count INTEGER NOT NULL,
                    updated_seq INTEGER NOT NULL,
                    PRIMARY KEY (account, folder, thread_id)
                ) WITHOUT ROWID;
                CREATE INDEX mail_conversation_order
                    ON mail_conversation(account, folder, latest_date DESC, thread_id DESC);
                CREATE INDEX mail_conversation_unread
                    ON mail_conversation(account, folder, latest_date DESC, thread_id DESC) WHERE unread_count > 0;
                CREATE INDEX mail_conversation_updated ON mail_conversation(account, folder, updated_seq);
                -- The drawer's counts, kept by the same writes.
                CREATE TABLE mail_folder_count (
                    account TEXT NOT NULL,
                    folder TEXT NOT NULL,
                    total INTEGER NOT NULL,
                    unread INTEGER NOT NULL,
                    PRIMARY KEY (account, folder)
                ) WITHOUT ROWID;
                -- 'sequence': the mail write sequence (cursor snapshots); 'sent': the last sent uid number.
                CREATE TABLE mail_counter (
                    name TEXT PRIMARY KEY,
                    value INTEGER NOT NULL
                ) WITHOUT ROWID;
                -- Full text over sender, subject and body; rows are added with their message.
                CREATE VIRTUAL TABLE mail_search USING fts5(
                    from_addr, subject, body,
                    content = 'mail_message', content_rowid = 'id',
                    tokenize = 'unicode61 remove_diacritics 0'
                );
                """)
        },
        searchFoldingMigration,
    ]
}
