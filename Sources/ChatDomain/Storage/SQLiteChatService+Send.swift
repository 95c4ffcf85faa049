import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteChatService {
    /// Stores one message of a batch in a savepoint of its own, inside the batch's transaction.
    ///
    /// - Throws: only what ends the transaction (a storage failure, or one after which SQLite left
    ///   no transaction open); anything else rolls back this message alone and is its outcome.
    func send(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> ChatSendOutcome {
        var outcome: ChatSendOutcome?
        do {
            try db.inSavepoint {
                outcome = try Self.storeUnlessSent(request, sentAt: sentAt, db)
                return .commit
            }
        } catch let error as ServiceError where db.isInsideTransaction {
            return .failed(error)
        } catch let error as DatabaseError where db.isInsideTransaction && AppDatabase.storageError(error, path: database.path) is DatabaseError {
            return .failed(failure(error))
        }
        guard let outcome else { throw ServiceError.notFound(kind: "room", id: request.roomId) }
        return outcome
    }

    /// The stored message when the sender's client id is stored already (marked duplicate), else
    /// stores it; throws ``ServiceError/notFound(kind:id:)`` when the sender is not in the room.
    static func storeUnlessSent(_ request: ChatSendRequest, sentAt: Int64, _ db: Database) throws -> ChatSendOutcome {
        // Inside the write transaction: another process's send with this id has committed or not at all.
        if let existing = try fetchSent(db, sender: request.sender, clientMessageId: request.clientMessageId) {
            return .duplicate(of: existing, state: try ChangeLog.state(db, domain: chatDomain))
        }
        guard try isMember(db, roomId: request.roomId, user: request.sender) else {
            throw ServiceError.notFound(kind: "room", id: request.roomId)
        }
        let message = try store(db, roomId: request.roomId, senderId: request.sender, text: request.text,
                                clientMessageId: request.clientMessageId, sentAt: sentAt)
        return .stored(message, state: try ChangeLog.state(db, domain: chatDomain))
    }

    /// Whether `user` is a member of `roomId`.
    static func isMember(_ db: Database, roomId: String, user: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM chat_member WHERE room_id = ? AND user_id = ?"), arguments: [roomId, user]) != nil
    }
}
