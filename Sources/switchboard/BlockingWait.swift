import JSONRPC

/// Runs async work from a plain thread and waits for its result: for a backend's opening (on the
/// thread ``LazyService`` starts for it) and a command's main thread. The work runs as a detached task
/// on Swift's pool while this thread sleeps on a condition; no pool thread ever waits, so the pool
/// cannot starve.
///
/// - Important: Never call it from a task: that would block a thread of the pool the work needs.
enum BlockingWait {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let slot = Slot<Value>()
        Task.detached {
            let result: Result<Value, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            slot.fill(result)
        }
        return try slot.take().get()
    }

    /// One result, handed from the task to the waiting thread.
    private final class Slot<Value: Sendable>: @unchecked Sendable {
        private let lock = ConditionLock()
        /// Guarded by ``lock``.
        private var result: Result<Value, any Error>?

        func fill(_ result: Result<Value, any Error>) {
            lock.withLock {
                self.result = result
                lock.broadcast()
            }
        }

        func take() -> Result<Value, any Error> {
            lock.withLock {
                while true {
                    if let result { return result }
                    lock.wait()
                }
            }
        }
    }
}
