#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Synchronization
import SystemCalls
import Testing

/// `SystemCall.retrying`, the one EINTR loop: a read a signal interrupts is made again, and returns what
/// the descriptor then gives.
@Suite("System calls retried on EINTR")
struct SystemCallTests {
    @Test("a read interrupted by signals (no SA_RESTART) is retried until the byte arrives")
    func retriesInterruptedRead() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocked read fails with EINTR
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        var data: [Int32] = [0, 0]
        var done: [Int32] = [0, 0]
        #expect(pipe(&data) == 0 && pipe(&done) == 0)
        defer { for fd in data + done { close(fd) } }
        let (source, sink, doneRead, doneWrite) = (data[0], data[1], done[0], done[1])
        let attempts = Atomic<Int>(0)
        let reader = Mutex<pthread_t?>(nil)
        try OSThread.detach(name: "test-eintr") {
            // A thread inherits its starter's mask, and the pool's threads block signals.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            reader.withLock { $0 = pthread_self() }
            var byte: UInt8 = 0
            let count = SystemCall.retrying { () -> Int in
                attempts.add(1, ordering: .sequentiallyConsistent)
                return read(source, &byte, 1)
            }
            var answer: [UInt8] = [UInt8(truncatingIfNeeded: count), byte]
            _ = write(doneWrite, &answer, 2)
        }
        // Signal the reader until it has been interrupted in its read and called it again (a bounded
        // number of signals, so a broken test fails rather than hangs).
        var signals = 0
        while attempts.load(ordering: .sequentiallyConsistent) < 2, signals < 10_000_000 {
            if let thread = reader.withLock({ $0 }) {
                pthread_kill(thread, SIGUSR2)
                signals += 1
            }
            sched_yield()
        }
        var byte: UInt8 = 42
        #expect(write(sink, &byte, 1) == 1)
        var answer: [UInt8] = [0, 0]
        #expect(SystemCall.retrying { read(doneRead, &answer, 2) } == 2)
        #expect(answer == [1, 42], "the retried read returned the byte, not -1")
        #expect(attempts.load(ordering: .sequentiallyConsistent) >= 2)
    }
}
