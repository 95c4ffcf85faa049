import SwitchboardPostgres

extension PostgresMailService {
    /// The mail tables, domain `mail`: those of ``SQLiteMailService/migrations``, with text compared
    /// and ordered byte-wise (`COLLATE "C"`, SQLite's `BINARY`) so pages and cursors match, times as
    /// `BIGINT` milliseconds, and instead of FTS5 the folded search twins of sender, subject and text
    /// with trigram indexes (`pg_trgm`, a trusted extension: the database owner may create it).
    public static let migrations = PostgresMigrations(domain: mailDomain, [
        PostgresMigration("mail-v1", statements: [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            """
            CREATE TABLE mail_account (
                email TEXT COLLATE "C" PRIMARY KEY,
                name TEXT
            )
            """,
            // Address lists are joined with newlines (addresses never hold one); `id` is the order of storing.
            """
            CREATE TABLE mail_message (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account TEXT COLLATE "C" NOT NULL,
                uid TEXT COLLATE "C" NOT NULL,
                thread_id TEXT COLLATE "C" NOT NULL,
                folder TEXT COLLATE "C" NOT NULL,
                from_addr TEXT NOT NULL,
                to_addrs TEXT NOT NULL,
                cc_addrs TEXT NOT NULL,
                subject TEXT NOT NULL,
                body TEXT NOT NULL,
                in_reply_to TEXT COLLATE "C",
                date_ms BIGINT NOT NULL,
                read BOOLEAN NOT NULL,
                folder_seq BIGINT NOT NULL,
                search_subject TEXT NOT NULL,
                search_from_addr TEXT NOT NULL,
                search_body TEXT NOT NULL,
                UNIQUE (account, uid)
            )
            """,
            "CREATE INDEX mail_message_thread ON mail_message(account, thread_id, folder)",
            "CREATE INDEX mail_message_reply ON mail_message(account, in_reply_to) WHERE in_reply_to IS NOT NULL",
            "CREATE INDEX mail_message_search_subject ON mail_message USING gin (search_subject gin_trgm_ops)",
            "CREATE INDEX mail_message_search_from ON mail_message USING gin (search_from_addr gin_trgm_ops)",
            "CREATE INDEX mail_message_search_body ON mail_message USING gin (search_body gin_trgm_ops)",
            // One row per (account, folder, thread): the inbox listing.
            """
            CREATE TABLE mail_conversation (
                account TEXT COLLATE "C" NOT NULL,
                folder TEXT COLLATE "C" NOT NULL,
                thread_id TEXT COLLATE "C" NOT NULL,
                latest_date BIGINT NOT NULL,
                latest_uid TEXT NOT NULL,
                latest_from TEXT NOT NULL,
                latest_snippet TEXT NOT NULL,
                subject TEXT NOT NULL,
                participants TEXT NOT NULL,
                message_count BIGINT NOT NULL,
                unread_count BIGINT NOT NULL,
                updated_seq BIGINT NOT NULL,
                PRIMARY KEY (account, folder, thread_id)
            )
            """,
            "CREATE INDEX mail_conversation_order ON mail_conversation(account, folder, latest_date DESC, thread_id DESC)",
            """
            CREATE INDEX mail_conversation_unread ON mail_conversation(account, folder, latest_date DESC, thread_id DESC)
            WHERE unread_count > 0
            """,
            "CREATE INDEX mail_conversation_updated ON mail_conversation(account, folder, updated_seq)",
            // The drawer's counts, kept by the same writes.
            """
            CREATE TABLE mail_folder_count (
                account TEXT COLLATE "C" NOT NULL,
                folder TEXT COLLATE "C" NOT NULL,
                total BIGINT NOT NULL,
                unread BIGINT NOT NULL,
                PRIMARY KEY (account, folder)
            )
            """,
            // 'sequence': the mail write sequence (cursor snapshots; its row lock orders mail writers);
            // 'sent': the last sent uid number.
            """
            CREATE TABLE mail_counter (
                name TEXT PRIMARY KEY,
                value BIGINT NOT NULL
            )
            """,
            "INSERT INTO mail_counter(name, value) VALUES ('sequence', 0), ('sent', 0)",
        ]),
    ])
}
