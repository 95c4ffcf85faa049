#if canImport(Glibc)
import Glibc
#endif

/// A task executor that runs every job on a new thread of its own, outside Swift's cooperative pool.
///
/// The binary tests block their thread in poll(2) while a spawned host works. On the cooperative pool
/// (one thread per core: two here) two such waits stop every other task of the test process. Here a
/// blocked job holds only its own thread; a job that suspends ends its thread, and the job that
/// resumes it gets a new one. Jobs are few per test (a synchronous test body is one), so a thread each
/// costs nothing measurable.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    /// Set on the threads this executor starts, for `BinaryHarness.expectOffCooperativePool`.
    static var isCurrentThreadOwned: Bool { pthread_getspecific(ownedKey) != nil }

    private static let ownedKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    func enqueue(_ job: consuming ExecutorJob) {
        let work = Work(job: UnownedJob(job), executor: asUnownedTaskExecutor())
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // The harness parses whole answers recursively; give it the main thread's room, not 8 MB less.
        pthread_attr_setstacksize(&attributes, 16 << 20)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(work).toOpaque()
        let started = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let work = Unmanaged<Work>.fromOpaque(context).takeRetainedValue()
            pthread_setspecific(ThreadPerJobExecutor.ownedKey, UnsafeRawPointer(bitPattern: 1))
            work.job.runSynchronously(on: work.executor)
            return nil
        }, context)
        if started != 0 {
            // No thread to be had: run it here rather than lose it (the test then shows the cost).
            Unmanaged<Work>.fromOpaque(context).release()
            work.job.runSynchronously(on: work.executor)
        }
    }

    private final class Work: @unchecked Sendable {
        let job: UnownedJob
        let executor: UnownedTaskExecutor
        init(job: UnownedJob, executor: UnownedTaskExecutor) {
            self.job = job
            self.executor = executor
        }
    }
}
