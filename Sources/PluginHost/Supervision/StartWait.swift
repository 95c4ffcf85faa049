import Synchronization

/// A call's wait for a plugin that is starting: given up as soon as the call is cancelled (answered
/// `-32800` at once: nothing was sent to the plugin), while the start goes on for the other calls
/// that wait for it. Awaiting the start task's value alone would hold the cancelled call, and its
/// admission slot, until the start ends or times out.
final class StartWait: Sendable {
    private struct State {
        var continuation: CheckedContinuation<PluginSession, any Error>?
        var outcome: Result<PluginSession, any Error>?
    }

    private let state = Mutex(State())

    /// The session `start` makes, or `CancellationError` once the caller is cancelled.
    static func session(of start: Task<PluginSession, any Error>) async throws -> PluginSession {
        let wait = StartWait()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                wait.set(continuation)
                Task { wait.finish(await start.result) }
            }
        } onCancel: {
            wait.finish(.failure(CancellationError()))
        }
    }

    private func set(_ continuation: CheckedContinuation<PluginSession, any Error>) {
        let outcome = state.withLock { state -> Result<PluginSession, any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// The first outcome wins: the start's or the cancellation.
    private func finish(_ outcome: Result<PluginSession, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<PluginSession, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }
}
