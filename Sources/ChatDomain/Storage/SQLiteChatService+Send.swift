import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteChatService {
    /// What storing one message of a batch came to.
    struct SendOutcome {
        var result: Result<Committed<ChatMessage>, any Error>
        /// True when a message was stored (not a duplicate, not failed).
        var stored: Bool
    }

    /// Stores one message of a batch in a savepoint of its own, inside the batch's transaction.
    ///
    /// - Throws: only what ends the transaction (a storage failure, or one after which SQLite left
    ///   no transaction open); anything else rolls back this message alone and is its outcome.
    func send(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> SendOutcome {
        var outcome: SendOutcome?
        do {
            try db.inSavepoint {
                outcome = try Self.storeUnlessSent(request, sentAt: sentAt, db)
                return .commit
            }
        } catch let error as ServiceError where db.isInsideTransaction {
            return SendOutcome(result: .failure(error), stored: false)
        } catch let error as DatabaseError where db.isInsideTransaction && AppDatabase.storageError(error, path: database.path) is DatabaseError {
            return SendOutcome(result: .failure(failure(error)), stored: false)
        }
        guard let outcome else { throw ServiceError.notFound(kind: "room", id: request.roomId) }
        return outcome
    }

    /// The stored message when the sender's client id is stored already (marked duplicate), else
    /// stores it; throws ``ServiceError/notFound(kind:id:)`` when the sender is not in the room.
    static func storeUnlessSent(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> SendOutcome {
        // Inside the write transaction: another process's send with this id has committed or not at all.
        if let existing = try fetchSent(db, sender: request.sender, clientMessageId: request.clientMessageId) {
            var duplicate = existing.message
            duplicate.duplicate = true
            return SendOutcome(result: .success(Committed(duplicate, state: try ChangeLog.state(db, domain: chatDomain))), stored: false)
        }
        guard try isMember(db, roomId: request.roomId, user: request.sender) else {
            throw ServiceError.notFound(kind: "room", id: request.roomId)
        }
        let message = try store(db, roomId: request.roomId, senderId: request.sender, text: request.text,
                                clientMessageId: request.clientMessageId, sentAt: sentAt)
        return SendOutcome(result: .success(Committed(message.message, state: try ChangeLog.state(db, domain: chatDomain))), stored: true)
    }

    /// Whether `user` is a member of `roomId`.
    static func isMember(_ db: Database, roomId: String, user: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM chat_member WHERE room_id = ? AND user_id = ?"), arguments: [roomId, user]) != nil
    }
}
