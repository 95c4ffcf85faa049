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
        let outcome: Result<JSONValue, ResponseError>
        if let result {
            outcome = .success(JSONValue(result))
        } else {
            let code = error?["code"]?.int64.map { ErrorCode(rawValue: Int($0)) } ?? .internalError
            let message = error?["message"]?.string ?? "error without a message"
            outcome = .failure(ResponseError(code: code, message: message, data: error?["data"].map(JSONValue.init)))
        }
        guard case .integer(let number) = id, settle(number, with: outcome) else {
            logger.debug("dropped a response to no request of ours", metadata: ["id": "\(id)"])
            return
        }
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
            }
        }
        guard let waiter else { return false }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        return true
    }
}
