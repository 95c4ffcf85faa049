#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached operating-system thread, for work that blocks in system calls
/// (reading a pipe, writing one, waiting for a signal) and so must stay off Swift's task pool.
public enum OSThread {
    /// Runs `body` on a new detached thread; `name` says what the thread is for, at the call site.
    public static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }
}
