import Dispatch
import Foundation
import Logging
import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The store's probe of the server (``PostgresReachability``) and what its verdicts do to work under
/// way (``PostgresWait``): the probe must not depend on the cooperative pool, and one probe that gets
/// no answer is not enough to cut work on a connection whose server may still be serving it.
///
/// No test asserts on time: each waits for a verdict or an answer, and what the server does (its
/// postmaster stopped and resumed) is driven by the verdicts the store logs.
@Suite("PostgreSQL: the probe of the server", .serialized, .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresReachabilityTests {
    /// Passes each message logged at `warning` or `notice` to `observe`, on the thread that logs it.
    struct ObservingLogHandler: LogHandler {
        var observe: @Sendable (String) -> Void
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            observe(event.message.description)
        }
    }

    @Test("a probe of a well server answers reachable while every thread of the cooperative pool is blocked: it runs on postgres-nio's event loop")
    func probeWithoutTheCooperativePool() async throws {
        var settings = try TestPostgres.settings()
        // Room for a start-up on a loaded machine: the test waits for the verdict, never for the timeout.
        settings.connectTimeoutSeconds = 5
        let reachability = PostgresReachability(settings: settings, logger: TestPostgres.logger)
        let verdict = Mutex<PostgresReachability.Verdict?>(nil)
        // Each thread that wakes passes the signal on: the verdict's signal releases them all.
        let released = DispatchSemaphore(value: 0)
        // libdispatch sizes the pool by the processors online (sysconf), which on Linux may be more than
        // Foundation's activeProcessorCount (it counts the CPU affinity and cgroup quota): block that many.
        let threads = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), ProcessInfo.processInfo.activeProcessorCount)
        for _ in 0..<threads {
            Task.detached {
                released.wait()
                released.signal()
            }
        }
        reachability.ask(since: 0) { answer, _ in
            verdict.withLock { $0 = answer }
            released.signal()
        }
        // This thread of the pool waits too (blocking it on purpose): until the verdict, no task runs
        // but those already on a thread. A probe that needed the pool was judged by its deadline.
        released.wait()
        released.signal()
        let answer = verdict.withLock { $0 }
        #expect(answer == .reachable, "\(String(describing: answer))")
    }

    @Test("work waiting on a lock while one probe gets no answer (the postmaster stopped, the backend well) goes on; it is cut only by two in a row")
    func oneSilentProbeDoesNotCutWork() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            let postmaster = try Self.postmasterPID(cluster)
            let (events, eventSink) = AsyncStream.makeStream(of: String.self)
            // The first verdict that the server does not answer resumes the postmaster at once, on the
            // thread that logs it: the next probe finds the server answering.
            let resumed = Atomic<Bool>(false)
            let logger = Logger(label: "switchboard.postgres.tests.reachability") { _ in
                ObservingLogHandler { message in
                    if message.contains("does not answer"), !resumed.exchange(true, ordering: .sequentiallyConsistent) {
                        kill(postmaster, SIGCONT)
                        eventSink.yield("silent")
                    } else if message.contains("answers again") {
                        eventSink.yield("again")
                    }
                }
            }
            var settings = try TestPostgres.settings(url: cluster.url)
            // The second probe, after SIGCONT, must complete a start-up within it: room for a loaded machine.
            settings.connectTimeoutSeconds = 5
            let store = try await PostgresStore.open(settings, migrations: [], logger: logger)
            let holder = try await TestPostgres.connect(settings)
            let watcher = try await TestPostgres.connect(settings)
            try await holder.query("SELECT pg_advisory_lock(42)", logger: TestPostgres.logger)
            let work = Task {
                defer { eventSink.yield("work ended") }
                return try await store.read { connection in
                    try await connection.query("SELECT pg_advisory_lock(42)", logger: TestPostgres.logger)
                    try await connection.query("SELECT pg_advisory_unlock(42)", logger: TestPostgres.logger)
                    return 1
                }
            }
            while try await Self.sessionsWaitingForLocks(watcher) == 0 { await Task.yield() }
            // New connections get no answer now; the work's backend, and the two of the test, still serve.
            kill(postmaster, SIGSTOP)
            var seen: [String] = []
            for await event in events {
                seen.append(event)
                if event != "silent" { break }
            }
            #expect(seen == ["silent", "again"], "\(seen)")
            try await holder.query("SELECT pg_advisory_unlock(42)", logger: TestPostgres.logger)
            let answer = await work.result
            if case .failure(let error) = answer {
                Issue.record("work on a well backend was cut after one silent probe: \(error)")
            }
            eventSink.finish()
            kill(postmaster, SIGCONT)
            try? await holder.close()
            try? await watcher.close()
            await store.close()
        }
    }

    static func sessionsWaitingForLocks(_ connection: PostgresConnection) async throws -> Int64 {
        for try await count in try await connection.query(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", logger: TestPostgres.logger).decode(Int64.self) {
            return count
        }
        return 0
    }

    /// The cluster's postmaster: the first line of its `postmaster.pid`.
    static func postmasterPID(_ cluster: DedicatedPostgresCluster) throws -> pid_t {
        let text = try String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8)
        let pid = text.split(separator: "\n").first.flatMap { pid_t($0) } ?? 0
        try #require(pid > 0, "no pid in postmaster.pid")
        return pid
    }
}
