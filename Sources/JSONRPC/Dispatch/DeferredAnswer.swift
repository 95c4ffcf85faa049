import Jansson
import Synchronization

/// The answer to a request whose method answers later, from whichever thread its outcome arrives on
/// (``MethodEntry/deferred(name:summary:prepare:)``): a call relayed to a plugin is answered by the
/// plugin's reader thread, with no task and no thread hop in between.
///
/// - Important: the first of ``succeed(_:)`` and ``fail(_:)`` answers; later calls are ignored. Both
///   return at once: the answer is written if the output has room, else queued by a task.
public final class DeferredAnswer: Sendable {
    private struct State {
        var answered = false
        var cancelled = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let deliver: @Sendable (Result<JanssonValue, ResponseError>) -> Void

    init(deliver: @escaping @Sendable (Result<JanssonValue, ResponseError>) -> Void) {
        self.deliver = deliver
    }

    public func succeed(_ result: JanssonValue) {
        if claim() { deliver(.success(result)) }
    }

    public func fail(_ error: any Error) {
        if claim() { deliver(.failure(ResponseError(error))) }
    }

    /// Runs `handler` when the client cancels the request (now, if it already has); the handler should
    /// make the request fail with `ResponseError.cancelled` (`-32800`).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if !state.cancelled, !state.answered { state.onCancel = handler }
            return state.cancelled
        }
        if now { handler() }
    }

    /// True once the request was cancelled.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The client cancelled: the cancel handler runs, or, with none set yet, the request fails now.
    func cancel() {
        enum Step { case run(@Sendable () -> Void), failNow, nothing }
        let step: Step = state.withLock { state in
            guard !state.cancelled else { return .nothing }
            state.cancelled = true
            defer { state.onCancel = nil }
            return state.onCancel.map { .run($0) } ?? .failNow
        }
        switch step {
        case .run(let handler): handler()
        case .failNow: fail(ResponseError.cancelled)
        case .nothing: break
        }
    }

    /// True for the first answer; the cancel handler goes with it (it may hold this answer).
    private func claim() -> Bool {
        state.withLock { state in
            defer {
                state.answered = true
                state.onCancel = nil
            }
            return !state.answered
        }
    }
}

extension DeferredAnswer {
    /// Runs deferred `work` from a task and suspends until it answers; cancelling the task cancels it.
    public static func value(of work: @escaping (DeferredAnswer) -> Void) async throws -> JSONValue {
        let pending = Mutex<(answer: DeferredAnswer?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                let answer = DeferredAnswer { outcome in
                    continuation.resume(with: outcome.map { JSONValue($0.view) }.mapError { $0 as any Error })
                }
                let cancelled = pending.withLock { pending in
                    pending.answer = answer
                    return pending.cancelled
                }
                work(answer)
                if cancelled { answer.cancel() }
            }
        } onCancel: {
            let answer = pending.withLock { pending in
                pending.cancelled = true
                return pending.answer
            }
            answer?.cancel()
        }
    }
}
