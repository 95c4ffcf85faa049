import Jansson
import Synchronization

extension Connection {
    /// Sends a request to the peer and returns its id without waiting for the answer, so the caller
    /// can name it in a cancellation; ``response(to:)`` then waits for the answer.
    public func startRequest(method: String, params: JSONValue?) async throws -> Int64 {
        let id: Int64? = outgoing.withLock { state in
            guard !state.closed else { return nil }
            defer { state.nextID += 1 }
            state.slots[state.nextID] = .sent
            return state.nextID
        }
        guard let id else { throw ResponseError.internalError("the connection is closed") }
        await send(OutgoingMessage.request(id: id, method: method, params: params?.makeJansson()))
        return id
    }

    /// Sends a request to the peer from any thread without waiting: gathered with the thread's other
    /// frames of this input chunk (``WriteCoalescing``), written when the output has room, else queued
    /// by a task. `onAnswer` runs once, on the thread the answer arrives on (the
    /// reader's), or with the error of ``abandonRequest(_:with:)`` or ``closeOutgoing(failing:)``; a
    /// result it is given is valid only during the call. Returns the id; nil when the connection is closed.
    public func startRequest(method: String, params: JanssonValue?,
                             onAnswer: @escaping @Sendable (Result<JSONView, ResponseError>) -> Void) -> Int64? {
        guard let id = takeRequestID(onAnswer, deadline: .max) else { return nil }
        send(requestID: id, method: method, fallback: { params }) { writer, body in
            RequestText.append(id: id, method: method, params: params?.view, writer: writer, to: &body)
        }
        return id
    }

    /// The same with params an object given as its members, in order (`{"name":…,"arguments":…}` of a
    /// relayed `tools/call`): written from them, with no params object built per request. A request
    /// with a `deadline` (``monotonicNanoseconds()``) is listed by ``expiredRequests(at:)`` once it passed.
    public func startRequest(method: String, members: [(key: String, value: JSONView)], deadline: UInt64 = .max,
                             onAnswer: @escaping @Sendable (Result<JSONView, ResponseError>) -> Void) -> Int64? {
        guard let id = takeRequestID(onAnswer, deadline: deadline) else { return nil }
        send(requestID: id, method: method, fallback: {
            let object = JanssonValue.object()
            for member in members { object.set(member.key, JanssonValue(retaining: member.value.pointer)) }
            return object
        }) { writer, body in
            RequestText.append(id: id, method: method, members: members, writer: writer, to: &body)
        }
        return id
    }

    /// A new id whose answer goes to `onAnswer`; nil when the connection is closed.
    private func takeRequestID(_ onAnswer: @escaping @Sendable (Result<JSONView, ResponseError>) -> Void,
                               deadline: UInt64) -> Int64? {
        outgoing.withLock { state in
            guard !state.closed else { return nil }
            defer { state.nextID += 1 }
            state.slots[state.nextID] = .handler(onAnswer, deadline: deadline)
            return state.nextID
        }
    }

    /// Sends request `id`: its body written by `body` once the framing is known (the usual case), else
    /// built as a message with `fallback`'s params and held until it is.
    private func send(requestID id: Int64, method: String, fallback: () -> JanssonValue?,
                      body write: (JSONWriter, inout [UInt8]) -> Void) {
        if let framing {
            var output: [UInt8] = []
            writers.withWriter { writer in
                var body: [UInt8] = []
                write(writer, &body)
                body.withUnsafeBytes { framing.appendFrame(body: $0, to: &output) }
            }
            WriteCoalescing.send(output, to: sink)
            return
        }
        let message = OutgoingMessage.request(id: id, method: method, params: fallback())
        if holdUntilFramed(message) { return }
        WriteCoalescing.send(framed(message), to: sink)
    }

    /// Waits for the answer to request `id` (from ``startRequest(method:params:)``); throws the peer's
    /// ``ResponseError``, or the one given to ``abandonRequest(_:with:)``.
    public func response(to id: Int64) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            let early: Result<JSONValue, ResponseError>?? = outgoing.withLock { state in
                switch state.slots[id] {
                case .answered(let result):
                    state.slots[id] = nil
                    return .some(result)
                case .sent:
                    state.slots[id] = .waiting(continuation)
                    return .some(nil)
                case .waiting, .handler, nil:
                    return nil
                }
            }
            switch early {
            case .some(.some(let result)): continuation.resume(with: result.mapError { $0 as any Error })
            case .some(.none): break
            case .none: continuation.resume(throwing: ResponseError.internalError("no request \(id) is waiting for an answer"))
            }
        }
    }

    /// Fails request `id` with `error` now, if it is still unanswered (a time-out, a cancellation); the
    /// peer's answer, should it come later, is dropped.
    public func abandonRequest(_ id: Int64, with error: ResponseError) {
        settle(id, with: .failure(error))
    }
}
