#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached operating-system thread, for work that blocks in system calls
/// (reading a pipe, writing one, waiting for a signal) and so must stay off Swift's task pool.
///
/// - Important: starting a thread can fail (the process or user is at its thread limit, no memory for
///   the stack): ``detach(name:stackBytes:_:)`` then throws, and the caller answers or logs it. Never a trap.
public enum OSThread {
    /// Runs `body` on a new detached thread; `name` says what the thread is for, at the call site.
    /// `stackBytes` sets the stack's size (the system's default when nil).
    public static func detach(name: String, stackBytes: Int? = nil, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { throw ThreadStartError(name: name, code: ENOMEM) }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackBytes {
            let result = pthread_attr_setstacksize(&attributes, stackBytes)
            guard result == 0 else { throw ThreadStartError(name: name, code: result) }
        }
        let box = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw ThreadStartError(name: name, code: result)
        }
    }
}

/// A thread could not be started: `code` is what `pthread_create` returned (`EAGAIN`: a thread limit,
/// or no memory for the stack).
public struct ThreadStartError: Error, Equatable, CustomStringConvertible {
    public let name: String
    public let code: Int32

    public init(name: String, code: Int32) {
        self.name = name
        self.code = code
    }

    public var description: String {
        "cannot start a thread for \(name): \(String(cString: strerror(code))) (errno \(code))"
    }
}
