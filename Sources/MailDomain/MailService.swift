import SwitchboardCore

/// Mail: accounts, folders, conversations grouped through reply chains, search and import.
///
/// Three implementations answer alike: ``InMemoryMailService`` (deterministic fixtures),
/// ``SQLiteMailService`` (GRDB) and ``PostgresMailService`` (a team's shared database); the two SQL
/// ones keep their rows by the same rules (``MailWrite``, ``ConversationRefresh``, ``ImportThreading``). Every method that reads or writes mail takes the account it acts
/// for; the method layer picks it from the connection's session (see ``MailSession``).
///
/// Threading: a conversation's id is the uid of its root message, found by following `inReplyTo`
/// up to a message that answers none or one not stored. A message stored before the one it answers
/// (imports come in any order) roots its own conversation until that one arrives; then its whole
/// conversation is re-threaded under the new root.
///
/// - Important: Change tracking counts messages by uid: sends and imports are `created`, read-flag
///   changes, moves and re-threading are `updated`. Writes and their change records share a
///   transaction, and a write's answer carries the state read in that transaction (``Committed``).
///   Services throw ``ServiceError``; the method layer names the params in the client's error.
public protocol MailService: Sendable {
    /// Signs into `email` (validated, lower-cased), creating the account on first login.
    func login(email: String) async throws -> LoginOutcome
    /// The drawer: every folder, in order, with message and unread counts.
    func folders(account: String) async throws -> [FolderSummary]
    /// The conversations of `folder`, newest activity first, a keyset page at a time (see
    /// ``ConversationOrder``). Throws the `-32602` error naming `cursor` for a cursor of another list.
    func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation>
    /// A page of a conversation's messages, oldest first (``ThreadPage``: at most `page.limit`
    /// messages and about 4 MB of text); `nil` when there is no such thread. Throws the `-32602` error
    /// naming `cursor` for a cursor of another list.
    func thread(account: String, threadId: String, page: PageRequest) async throws -> ThreadDetail?
    func message(account: String, uid: String) async throws -> Message?
    /// Stores `message` in Sent under a new uid (`s1`, `s2`, …), dated by the clock, threaded with
    /// what it answers. Throws ``ServiceError/notFound(kind:id:)`` with the parent's uid when the
    /// message it answers does not exist.
    func send(account: String, _ message: MailDraft) async throws -> Committed<Message>
    /// Sets the read flag; returns the uids whose flag changed. Throws ``ServiceError/notFound(kind:id:)``
    /// with the first unknown uid (and changes nothing) when a uid does not exist.
    func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]>
    /// Moves messages; returns the uids that changed folder. Unknown uids as for ``markRead(account:uids:read:)``.
    func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]>
    /// Full-text search over sender, subject and text, best match first (see ``SearchQuery``).
    func search(account: String, query: String, page: PageRequest) async throws -> Page<SearchHit>
    /// Stores the records whose uid the account does not have yet, threading each; the outcome
    /// carries the state read in the (last) write transaction.
    func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome
    /// The domain's change-tracking state.
    func state() async throws -> String
    /// Message uids created or updated since `sinceState`, at most `limit`.
    func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet
}

/// The demo account every fixture belongs to, and the default account of the executable.
public enum DemoAccount {
    public static let email = "demo@switchboard.example"
    public static let name = "Demo User"
}
