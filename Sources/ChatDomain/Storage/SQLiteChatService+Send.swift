import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteChatService {
    /// Thrown out of a batch's first pass when a message failed after it began writing: the
    /// transaction rolls back and the batch is stored again, each message in a savepoint of its own.
    struct FailedMidWrite: Error {}

    /// Stores one message of a batch's first pass, inside the batch's transaction and without a
    /// savepoint. The checks (a duplicate, membership) come before the message's first write, so a
    /// message they refuse wrote nothing and fails alone here; one that fails once it began writing
    /// throws ``FailedMidWrite``.
    ///
    /// - Throws: ``FailedMidWrite``, or what ends the transaction (a storage failure, or one after which
    ///   SQLite left no transaction open).
    func storeWithoutSavepoint(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> ChatSendOutcome {
        do {
            if let duplicate = try Self.duplicateOrRefusal(request, db) { return duplicate }
        } catch {
            return try failedAlone(error, db)
        }
        do {
            return try Self.store(request, sentAt: sentAt, db)
        } catch {
            // A storage failure ends the batch as it would anyway; anything else the second pass undoes.
            _ = try failedAlone(error, db)
            throw FailedMidWrite()
        }
    }

    /// Stores one message of a batch in a savepoint of its own, inside the batch's transaction:
    /// anything but the end of the transaction rolls back this message alone and is its outcome.
    ///
    /// - Throws: only what ends the transaction (a storage failure, or one after which SQLite left
    ///   no transaction open).
    func storeInSavepoint(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> ChatSendOutcome {
        var outcome: ChatSendOutcome?
        do {
            try db.inSavepoint {
                outcome = try Self.duplicateOrRefusal(request, db) ?? Self.store(request, sentAt: sentAt, db)
                return .commit
            }
        } catch {
            return try failedAlone(error, db)
        }
        guard let outcome else { throw ServiceError.notFound(kind: "room", id: request.roomId) }
        return outcome
    }

    /// `error` as the outcome of one message when it leaves the batch's transaction going: a service
    /// error, or a database error that is not about the storage; rethrows anything else.
    private func failedAlone(_ error: any Error, _ db: Database) throws -> ChatSendOutcome {
        switch error {
        case let error as ServiceError where db.isInsideTransaction:
            return .failed(error)
        case let error as DatabaseError where db.isInsideTransaction && AppDatabase.storageError(error, path: database.path) is DatabaseError:
            return .failed(failure(error))
        default:
            throw error
        }
    }

    /// The stored message when the sender's client id is stored already (marked duplicate), `nil`
    /// when the message is to be stored; throws ``ServiceError/notFound(kind:id:)`` when the sender
    /// is not in the room. Writes nothing.
    static func duplicateOrRefusal(_ request: ChatSendRequest, _ db: Database) throws -> ChatSendOutcome? {
        // Inside the write transaction: another process's send with this id has committed or not at all.
        let check = try check(db, sender: request.sender, roomId: request.roomId, clientMessageId: request.clientMessageId)
        if let existing = check.stored { return .duplicate(of: existing, for: request, state: check.state) }
        guard check.isMember else { throw ServiceError.notFound(kind: "room", id: request.roomId) }
        return nil
    }

    /// Stores `request`'s message, with the state after it.
    static func store(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> ChatSendOutcome {
        let (message, latest) = try store(db, roomId: request.roomId, senderId: request.sender, text: request.text,
                                          clientMessageId: request.clientMessageId, sentAt: sentAt)
        return .stored(message, state: ChangeTracking.state(domain: chatDomain, sequence: latest))
    }

    /// What `chat.send` reads before it answers, and each send of a batch again in the write
    /// transaction, in one statement: the log's newest position, whether the sender is in the room,
    /// and the message stored under the client id, if any.
    static func check(_ db: Database, sender: String, roomId: String,
                      clientMessageId: String) throws -> (state: String, isMember: Bool, stored: StoredChatMessage?) {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'change_log'),
                   EXISTS (SELECT 1 FROM chat_member WHERE room_id = ? AND user_id = ?),
                   m.position, m.log_sequence, m.room_id, m.sender_id, m.text, m.client_message_id, m.sent_at
            FROM (SELECT 1) LEFT JOIN chat_message m ON m.sender_id = ? AND m.client_message_id = ?
            """), arguments: [roomId, sender, sender, clientMessageId])
        // `FROM (SELECT 1)`: one row, whether or not a message is stored under the client id.
        guard let row = try rows.next() else { throw ServiceError.notFound(kind: "room", id: roomId) }
        let latest: Int64? = row[0]
        return (ChangeTracking.state(domain: chatDomain, sequence: latest ?? 0), row[1],
                row.hasNull(atIndex: 2) ? nil : message(row, from: 2))
    }
}
