import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresChatService {
    /// One transaction for the whole batch (a group commit), each message in a savepoint of its own:
    /// a message that fails (not a member, a constraint, a server error) is rolled back alone and
    /// fails alone. A failure of the transaction itself (the connection lost, the server shutting
    /// down, the commit refused) fails every message of the batch; none is stored. When the session
    /// ended after the `COMMIT` was sent, the batch may have been stored: ``settle(_:sentAt:afterCommitCut:)``
    /// looks each message up.
    public func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>] {
        guard !batch.isEmpty else { return [] }
        let now = clock.now()
        do {
            let outcomes = try await store.writeReportingCommit { connection in
                var outcomes: [ChatSendOutcome] = []
                outcomes.reserveCapacity(batch.count)
                for request in batch { outcomes.append(try await self.send(request, sentAt: now, connection)) }
                return outcomes
            }
            return ChatSendOutcome.answers(outcomes, signal: signal)
        } catch let unknown as PostgresCommitUnknown {
            return await settle(batch, sentAt: now, afterCommitCut: unknown.error)
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// The answers of a batch whose `COMMIT` was sent but not answered (the session ended): each
    /// message is looked up by its sender's client id, on a new connection (the pool's next one, once
    /// the server is back). A message found stored at the batch's time is answered `sent`, one stored
    /// earlier as a duplicate, as a send would; one not found failed with `error` (the transaction
    /// rolled back). When the look-up fails too, whatever the failure (the server gone again, a
    /// read-only server refusing the lock, a statement cancelled), the outcome is unknown: every message
    /// fails `storageUnavailable` whose cause adds that it may be stored: sending it again with the same
    /// client id tells (a duplicate).
    ///
    /// - Important: the session's end on this side is not the transaction's end on the server: a
    ///   backend cut off by the network, or frozen and closed by the store's verdict, may still read
    ///   the `COMMIT` and commit after this look-up. So the look-up first takes the change log's head
    ///   `FOR SHARE`, the row every batch that stores a message holds `FOR UPDATE` until it ends
    ///   (``PostgresChangeLog/reserve(_:logger:)``): it waits for the batch's transaction to end
    ///   (committed or rolled back), and a message not found then was not stored. The wait is bounded
    ///   by `lock_timeout` (`connect_timeout`); a transaction still holding the head after it leaves
    ///   the outcome unknown, and every message fails saying it may be stored. A batch that took no
    ///   lock stored nothing, so nothing is waited for in vain. `statement_timeout` is off in the
    ///   look-up's transaction: a role's shorter one would cancel the wait before `lock_timeout`.
    func settle(_ batch: [ChatSendRequest], sentAt: Int64, afterCommitCut error: ServiceError) async -> [Result<Committed<ChatMessage>, any Error>] {
        let logger = logger
        let lockTimeout = max(1, store.settings.connectTimeoutSeconds) * 1000
        let checks: [(latest: Int64, isMember: Bool, stored: StoredChatMessage?)]
        do {
            checks = try await store.writeReportingCommit { connection in
                // A snapshot per statement, whatever the role's default: the look-ups see the commit the lock waited for.
                try await connection.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", logger: logger)
                try await connection.query("""
                    SELECT set_config('lock_timeout', \(String(lockTimeout)), true), set_config('statement_timeout', '0', true)
                    """, logger: logger)
                do {
                    // The rows are read: the lock's failure comes with them, not with the statement's start.
                    for try await _ in try await connection.query("SELECT sequence FROM change_log_head WHERE id = 1 FOR SHARE", logger: logger) {}
                } catch let failure where PostgresStore.sqlState(of: failure) == "55P03" {
                    throw ChatSettleLockTimeout(seconds: lockTimeout / 1000)
                }
                var checks: [(latest: Int64, isMember: Bool, stored: StoredChatMessage?)] = []
                for request in batch {
                    checks.append(try await Self.sendCheck(connection, sender: request.sender, roomId: request.roomId,
                                                           clientMessageId: request.clientMessageId, logger: logger))
                }
                return checks
            }
        } catch let timeout as ChatSettleLockTimeout {
            // The batch's transaction still holds the head: it has neither committed nor rolled back.
            logger.warning("chat.send: the session ended during a batch's COMMIT and its transaction still held the change log's head after \(timeout.seconds) s: its outcome is unknown")
            let unknown = mayBeStored(error, "the batch's COMMIT had been sent and its transaction had not ended on the server after \(timeout.seconds) s")
            return batch.map { _ in .failure(unknown) }
        } catch let lookUp {
            // Any failure of the look-up leaves the outcome unknown: none says the batch rolled back.
            logger.warning("chat.send: the session ended during a batch's COMMIT and its messages could not be looked up: \(lookUp)")
            let failure = (lookUp as? PostgresCommitUnknown)?.error ?? lookUp
            let unknown: ServiceError
            if case .storageUnavailable? = failure as? ServiceError {
                unknown = mayBeStored(failure, "the batch's COMMIT had been sent")
            } else {
                unknown = mayBeStored(error, "the batch's COMMIT had been sent and looking it up failed too (\(Self.summary(of: failure)))")
            }
            return batch.map { _ in .failure(unknown) }
        }
        let outcomes = zip(batch, checks).map { request, check -> ChatSendOutcome in
            let state = ChangeTracking.state(domain: chatDomain, sequence: check.latest)
            guard let stored = check.stored, stored.roomId.hasSameBytes(as: request.roomId) else { return .failed(error) }
            return stored.sentAt == sentAt ? .stored(stored, state: state) : .duplicate(of: stored, for: request, state: state)
        }
        logger.notice("chat.send: the session ended during a batch's COMMIT; looked up by client id: \(outcomes.filter(\.stored).count) of \(batch.count) stored")
        return ChatSendOutcome.answers(outcomes, signal: signal)
    }

    /// Not "not stored": `storageUnavailable` (-32050) whose cause adds that the message may be stored
    /// (`why`) and how to know; its path and cause are `failure`'s when it is one.
    func mayBeStored(_ failure: any Error, _ why: String) -> ServiceError {
        let advice = "; \(why), so the message may be stored: send it again with the same clientMessageId to know"
        if case .storageUnavailable(let path, let cause)? = failure as? ServiceError {
            return .storageUnavailable(path: path, cause: cause + advice)
        }
        return .storageUnavailable(path: store.settings.redactedDescription,
                                   cause: "PostgreSQL at \(store.settings.serverName): the batch's COMMIT was not answered" + advice)
    }

    /// A look-up's failure as a client may read it: a storage error's own words, a service failure's
    /// debug id (its cause is in the host's log), anything else only named.
    static func summary(of failure: any Error) -> String {
        switch failure as? ServiceError {
        case .storageReadOnly(_, let cause)?, .storageUnavailable(_, let cause)?, .commitUnknown(_, let cause)?: cause
        case .serviceFailure(let debugId, _)?: "service failure \(debugId), in the host's log"
        default: "\(type(of: failure)), in the host's log"
        }
    }

    /// Stores one message of a batch in a savepoint of its own, inside the batch's transaction.
    ///
    /// - Throws: only what ends the transaction (the connection, the server going away, a
    ///   cancellation); anything else rolls back this message alone and is its outcome. A unique
    ///   violation of its client id (another host stored the same id since the check) is answered as
    ///   the message that host stored, a duplicate.
    func send(_ request: ChatSendRequest, sentAt: Int64, _ connection: PostgresConnection) async throws -> ChatSendOutcome {
        try await connection.query("SAVEPOINT chat_send", logger: logger)
        do {
            let outcome = try await storeUnlessSent(request, sentAt: sentAt, connection)
            try await connection.query("RELEASE SAVEPOINT chat_send", logger: logger)
            return outcome
        } catch {
            let failure = store.serviceError(error)
            switch failure as? ServiceError {
            case nil, .storageUnavailable?: throw error
            default: break
            }
            try await connection.query("ROLLBACK TO SAVEPOINT chat_send", logger: logger)
            try await connection.query("RELEASE SAVEPOINT chat_send", logger: logger)
            if PostgresStore.sqlState(of: error) == "23505",
               let check = try? await Self.sendCheck(connection, sender: request.sender, roomId: request.roomId,
                                                      clientMessageId: request.clientMessageId, logger: logger),
               let existing = check.stored {
                return .duplicate(of: existing, for: request, state: ChangeTracking.state(domain: chatDomain, sequence: check.latest))
            }
            return .failed(failure)
        }
    }

    /// The stored message when the sender's client id is stored already (marked duplicate), else
    /// stores it at the next position; throws ``ServiceError/notFound(kind:id:)`` when the sender is
    /// not in the room.
    func storeUnlessSent(_ request: ChatSendRequest, sentAt: Int64, _ connection: PostgresConnection) async throws -> ChatSendOutcome {
        let check = try await Self.sendCheck(connection, sender: request.sender, roomId: request.roomId,
                                             clientMessageId: request.clientMessageId, logger: logger)
        if let existing = check.stored {
            return .duplicate(of: existing, for: request, state: ChangeTracking.state(domain: chatDomain, sequence: check.latest))
        }
        guard check.isMember else { throw ServiceError.notFound(kind: "room", id: request.roomId) }
        // From here to the commit the log's head is this transaction's: positions follow commit order,
        // and the next position is read after every earlier writer committed.
        let sequence = try await PostgresChangeLog.reserve(connection, logger: logger)
        var stored: Int64?
        for try await position in try await connection.query("""
            INSERT INTO chat_message(position, room_id, sender_id, text, client_message_id, sent_at, log_sequence)
            SELECT COALESCE(max(position), 0) + 1, \(request.roomId), \(request.sender), \(request.text), \(request.clientMessageId),
                   \(sentAt), \(sequence)
            FROM chat_message RETURNING position
            """, logger: logger).decode(Int64.self) {
            stored = position
        }
        guard let position = stored else { throw ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: the message insert returned no position") }
        let recorded = try await PostgresChangeLog.record(connection, domain: chatDomain, itemID: StoredChatMessage.id(position: position),
                                                          kind: .created, logger: logger)
        guard recorded == sequence else {
            throw ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: the change log moved past the reserved position")
        }
        let last = try await PostgresChangeLog.record(connection, domain: chatDomain, itemID: request.roomId, kind: .updated, logger: logger)
        let message = StoredChatMessage(position: position, logSequence: sequence, roomId: request.roomId, senderId: request.sender,
                                        text: request.text, clientMessageId: request.clientMessageId, sentAt: sentAt)
        return .stored(message, state: ChangeTracking.state(domain: chatDomain, sequence: last))
    }
}

/// The look-up after a cut `COMMIT` waited `lock_timeout` for the batch's transaction to end, in vain.
struct ChatSettleLockTimeout: Error {
    var seconds: Int
}
