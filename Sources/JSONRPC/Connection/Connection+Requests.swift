import Jansson
import Logging
import Synchronization

/// Requests the host sends to its peer, by id, until the peer answers.
struct OutgoingRequests {
    /// Where a request stands: sent, with its caller not yet waiting; waiting; or answered early.
    enum Slot {
        case sent
        case waiting(CheckedContinuation<JSONValue, any Error>)
        case answered(Result<JSONValue, ResponseError>)
        /// Answered by a call on the thread the answer arrives on (``Connection/startRequest(method:params:onAnswer:)``),
        /// due by `deadline` (``Connection/expiredRequests(at:)``; `.max`: none).
        case handler(@Sendable (Result<JSONView, ResponseError>) -> Void, deadline: UInt64)
    }

    var nextID: Int64 = 1
    var slots: [Int64: Slot] = [:]
    var closed = false
}

extension Connection {
    /// Sends a request to the peer and waits for its answer; throws the peer's ``ResponseError``.
    /// Like an answer, the request waits for room while the output is full.
    public func sendRequest(method: String, params: JSONValue?) async throws -> JSONValue {
        try await response(to: try await startRequest(method: method, params: params))
    }

    /// Hands a response from the peer to the request waiting for it.
    func receiveResponse(id: RequestID, result: JSONView?, error: JSONView?) {
        if case .integer(let number) = id, let handler = takeHandler(number) {
            // Passed on as it was parsed, with no conversion.
            handler(result.map { .success($0) } ?? .failure(peerError(.error(error))))
            return
        }
        let outcome: Result<JSONValue, ResponseError> = result.map { .success(JSONValue($0)) } ?? .failure(peerError(.error(error)))
        guard case .integer(let number) = id else {
            // Named where it shows by default: a plugin answering under another id (`"1"` for 1) leaves
            // its call waiting for its time-out, and this line is how its author finds out why.
            logger.warning("dropped a response whose id \(LogText.escaped("\(id)", limit: 40)) names no request of ours (ours are integers)")
            return
        }
        guard settle(number, with: outcome) else {
            // A late answer to a request given up (timed out, cancelled): routine.
            logger.debug("dropped a response to no request of ours waiting", metadata: ["id": "\(id)"])
            return
        }
    }

    /// Fails the request `id` answers with the peer's unreadable answer (``PeerFailure/unreadable(_:)``).
    func receiveUnreadableResponse(id: RequestID, reason: String) {
        guard case .integer(let number) = id, settle(number, with: .failure(peerError(.unreadable(reason)))) else {
            logger.debug("dropped an unreadable response to no request of ours waiting", metadata: ["id": "\(id)"])
            return
        }
    }

    /// The error a failed answer describes, as it says: a missing or non-integer code is `-32603`, as
    /// is an answer the host cannot read.
    public static func responseError(_ failure: PeerFailure) -> ResponseError {
        switch failure {
        case .error(let error): responseError(error)
        case .unreadable(let reason): .internalError("the peer's response: \(reason)")
        }
    }

    private static func responseError(_ error: JSONView?) -> ResponseError {
        let code = error?["code"]?.int64.map { ErrorCode(rawValue: Int($0)) } ?? .internalError
        let message = error?["message"]?.string ?? "error without a message"
        return ResponseError(code: code, message: message, data: error?["data"].map(JSONValue.init))
    }

    /// Fails every request still waiting for the peer with `failure` (a plugin's crash, say); later
    /// ones fail at once.
    public func closeOutgoing(failing failure: ResponseError = .internalError("the connection closed before it answered")) {
        let ids = outgoing.withLock { state in
            state.closed = true
            return Array(state.slots.keys)
        }
        for id in ids { settle(id, with: .failure(failure)) }
    }

    /// Resumes the caller of request `id`, or keeps the outcome until it waits; false if no such request.
    @discardableResult
    func settle(_ id: Int64, with outcome: Result<JSONValue, ResponseError>) -> Bool {
        var handlerToCall: (@Sendable (Result<JSONView, ResponseError>) -> Void)?
        let waiter: CheckedContinuation<JSONValue, any Error>?? = outgoing.withLock { state in
            switch state.slots[id] {
            case nil:
                return nil
            case .sent:
                state.slots[id] = .answered(outcome)
                return .some(nil)
            case .waiting(let continuation):
                state.slots[id] = nil
                return .some(continuation)
            case .answered:
                return .some(nil)
            case .handler(let handler, _):
                state.slots[id] = nil
                handlerToCall = handler
                return .some(nil)
            }
        }
        guard let waiter else { return false }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        if let handlerToCall {
            switch outcome {
            case .success(let value): withExtendedLifetime(value.makeJansson()) { handlerToCall(.success($0.view)) }
            case .failure(let error): handlerToCall(.failure(error))
            }
        }
        return true
    }

    /// Takes the handler of request `id`, if it has one.
    private func takeHandler(_ id: Int64) -> (@Sendable (Result<JSONView, ResponseError>) -> Void)? {
        outgoing.withLock { state in
            guard case .handler(let handler, _) = state.slots[id] else { return nil }
            state.slots[id] = nil
            return handler
        }
    }

    /// The requests started with a deadline (``startRequest(method:members:deadline:onAnswer:)``) that
    /// passed by `now` and are still unanswered, and the earliest deadline of the others (nil: none).
    /// The caller fails them (``abandonRequest(_:with:)``): one timer per connection serves them all.
    public func expiredRequests(at now: UInt64) -> (ids: [Int64], next: UInt64?) {
        outgoing.withLock { state in
            var ids: [Int64] = []
            var next: UInt64?
            for (id, slot) in state.slots {
                guard case .handler(_, let deadline) = slot, deadline != .max else { continue }
                if deadline <= now {
                    ids.append(id)
                } else {
                    next = min(next ?? .max, deadline)
                }
            }
            return (ids.sorted(), next)
        }
    }
}
