#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Synchronization
import Testing

/// Starting a thread can fail; that is an error the caller handles, never a trap.
@Suite("OS threads")
struct OSThreadTests {
    @Test("a thread that cannot be started (a stack larger than the address space) throws, and its body never runs")
    func failedStartThrows() {
        let ran = Mutex(false)
        #expect(throws: ThreadStartError.self) {
            try OSThread.detach(name: "too-big", stackBytes: 1 << 50) { ran.withLock { $0 = true } }
        }
        #expect(!ran.withLock { $0 })
    }

    @Test("a thread that starts runs its body")
    func startedThreadRuns() throws {
        let lock = ConditionLock()
        let ran = Mutex(false)
        try OSThread.detach(name: "test-runs") {
            lock.withLock {
                ran.withLock { $0 = true }
                lock.broadcast()
            }
        }
        lock.withLock { while !ran.withLock({ $0 }) { lock.wait() } }
        #expect(ran.withLock { $0 })
    }
}
