import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Synchronization
import Testing

/// A server that is down, frozen or cut off must not hold a request for good, and a server that is only
/// busy or slow must not fail one: each wait asks a probe of the server after `connect_timeout`, and
/// only a server that does not answer it ends the wait (-32050, saying why; a `COMMIT` under way is
/// reported as of unknown outcome). On a cluster of the test's own, which it stops and freezes.
///
/// No test asserts on time: each waits for its answers, with a generous bound (``answer(_:)``) that only
/// turns a hang into a failure.
@Suite("PostgreSQL: a server that is down, frozen or busy", .serialized, .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresDeadlineTests {
    /// What a request came to: its value or error, or nothing within the hang guard.
    enum Answer<Value: Sendable>: Sendable {
        case value(Value)
        case error(any Error)
        case none
    }

    /// Three minutes: the waits here are a few `connect_timeout`s of 4 s; only a hang is this long.
    static let hangGuardSeconds = 180

    /// `request`'s answer; `.none` when it has none within the hang guard (the request is left behind:
    /// a hang must fail the test, not stop the run).
    static func answer<Value: Sendable>(_ request: @escaping @Sendable () async throws -> Value) async -> Answer<Value> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Answer<Value>, Never>) in
            let once = Mutex<CheckedContinuation<Answer<Value>, Never>?>(continuation)
            let resume: @Sendable (Answer<Value>) -> Void = { answer in once.withLock { $0.take() }?.resume(returning: answer) }
            let work = Task {
                do { resume(.value(try await request())) } catch { resume(.error(error)) }
            }
            Task {
                try? await Task.sleep(for: .seconds(hangGuardSeconds))
                resume(.none)
                work.cancel()
            }
        }
    }

    static func one(_ store: PostgresStore) async throws -> Int {
        try await store.read { connection in
            var values: [Int] = []
            for try await value in try await connection.query("SELECT 1", logger: TestPostgres.logger).decode(Int.self) { values.append(value) }
            return values.first ?? 0
        }
    }

    /// The cause of a -32050 answer; an issue when the answer is anything else.
    static func unavailableCause<Value>(_ answer: Answer<Value>, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        switch answer {
        case .error(let error):
            if case .storageUnavailable(_, let cause)? = error as? ServiceError { return cause }
            Issue.record("expected -32050 (storageUnavailable), got \(error)", sourceLocation: sourceLocation)
        case .value(let value):
            Issue.record("expected -32050 (storageUnavailable), got the value \(value)", sourceLocation: sourceLocation)
        case .none:
            Issue.record("no answer within \(hangGuardSeconds) s", sourceLocation: sourceLocation)
        }
        return ""
    }

    /// A read once the server is back: the pool connects again with a backoff, and a request in the
    /// meantime may still fail as unavailable.
    static func servedAgain(_ store: PostgresStore) async -> Bool {
        for _ in 0..<100 {
            if case .value(1) = await answer({ try await one(store) }) { return true }
        }
        return false
    }

    static func store(on cluster: DedicatedPostgresCluster) async throws -> PostgresStore {
        var settings = try TestPostgres.settings(url: cluster.url)
        settings.connectTimeoutSeconds = 4
        let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
        _ = try await store.write { connection in
            try await connection.query("CREATE TABLE IF NOT EXISTS deadline_note (id int PRIMARY KEY)", logger: TestPostgres.logger)
        }
        return store
    }

    @Test("a stopped server: requests fail -32050 naming the refusal, not after the pool's minute of retries; started again, they are served")
    func stopped() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            let store = try await Self.store(on: cluster)
            #expect(try await Self.one(store) == 1)
            try cluster.halt()
            // The pool's connection may be leased before its close is seen: that read fails as a closed session.
            _ = Self.unavailableCause(await Self.answer { try await Self.one(store) })
            for _ in 0..<3 {
                let cause = Self.unavailableCause(await Self.answer { try await Self.one(store) })
                #expect(cause.contains("connection refused"), "\(cause)")
                #expect(cause.contains("the server does not answer"), "\(cause)")
            }
            let write = Self.unavailableCause(await Self.answer {
                try await store.write { try await $0.query("INSERT INTO deadline_note VALUES (1)", logger: TestPostgres.logger) }
            })
            #expect(write.contains("connection refused"), "\(write)")
            try cluster.resume()
            #expect(await Self.servedAgain(store))
            await store.close()
        }
    }

    @Test("a frozen server: every request under way or waiting fails -32050 saying it does not answer, a COMMIT under way as of unknown outcome; thawed, requests are served")
    func frozen() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            let store = try await Self.store(on: cluster)
            #expect(try await Self.one(store) == 1)
            let (leased, leases) = AsyncStream.makeStream(of: Void.self)
            let answers = await withTaskGroup(of: (String, Answer<Int>).self) { group in
                // Reads and writes under way, in statements the freeze leaves unanswered.
                for index in 0..<4 {
                    group.addTask {
                        ("under way \(index)", await Self.answer {
                            let work: @Sendable (PostgresConnection) async throws -> Int = { connection in
                                leases.yield()
                                if !index.isMultiple(of: 2) {
                                    try await connection.query("INSERT INTO deadline_note VALUES (\(100 + index))", logger: TestPostgres.logger)
                                }
                                try await connection.query("SELECT pg_sleep(60)", logger: TestPostgres.logger)
                                return index
                            }
                            return index.isMultiple(of: 2) ? try await store.read(work) : try await store.write(work)
                        })
                    }
                }
                var count = 0
                for await _ in leased {
                    count += 1
                    if count == 4 { break }
                }
                // A COMMIT sent to the server as it freezes: whether it committed is unknown.
                let commit = await Self.answer {
                    try await store.writeReportingCommit { connection in
                        try await connection.query("INSERT INTO deadline_note VALUES (7)", logger: TestPostgres.logger)
                        try cluster.freeze()
                    }
                }
                switch commit {
                case .error(let unknown as PostgresCommitUnknown):
                    if case .storageUnavailable(_, let cause) = unknown.error {
                        #expect(cause.contains("does not answer"), "\(cause)")
                    } else {
                        Issue.record("expected the unknown commit's -32050, got \(unknown.error)")
                    }
                case .error(let error): Issue.record("expected PostgresCommitUnknown, got \(error)")
                case .value: Issue.record("expected PostgresCommitUnknown, got a committed write")
                case .none: Issue.record("no answer within \(Self.hangGuardSeconds) s")
                }
                // Requests that come while it is frozen: they wait for a connection, or get one that never answers.
                for index in 0..<4 {
                    group.addTask {
                        ("while frozen \(index)", await Self.answer {
                            if index.isMultiple(of: 2) { return try await Self.one(store) }
                            return try await store.write { connection in
                                try await connection.query("INSERT INTO deadline_note VALUES (\(200 + index))", logger: TestPostgres.logger)
                                return index
                            }
                        })
                    }
                }
                var answers: [(String, Answer<Int>)] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            leases.finish()
            #expect(answers.count == 8)
            for (name, answer) in answers {
                let cause = Self.unavailableCause(answer)
                #expect(cause.contains("does not answer"), "\(name): \(cause)")
            }
            try cluster.thaw()
            #expect(await Self.servedAgain(store))
            let notes = try await store.read { connection in
                var ids: [Int] = []
                for try await id in try await connection.query("SELECT id FROM deadline_note ORDER BY id", logger: TestPostgres.logger).decode(Int.self) {
                    ids.append(id)
                }
                return ids
            }
            // The frozen COMMIT did commit once the server woke (it read the COMMIT before the closed
            // socket's end): an answer of "not done" would have been false. No write answered -32050
            // before its COMMIT was sent was committed.
            #expect(notes == [7], "\(notes)")
            await store.close()
        }
    }

    @Test("a busy pool: with every connection in a query longer than connect_timeout, another request waits and is served once they end; none fails")
    func busy() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            let store = try await Self.store(on: cluster)
            let connections = store.settings.clientConfiguration.options.maximumConnections
            let (leased, leases) = AsyncStream.makeStream(of: Void.self)
            let answers = await withTaskGroup(of: Answer<Int>.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        await Self.answer {
                            try await store.read { connection in
                                leases.yield()
                                // Longer than connect_timeout (6 s against 4): the probe asked at 4 s finds the server well, and the work goes on.
                                try await connection.query("SELECT pg_sleep(6)", logger: TestPostgres.logger)
                                return 6
                            }
                        }
                    }
                }
                var count = 0
                for await _ in leased {
                    count += 1
                    if count == connections { break }
                }
                // Every connection is in use: this one waits for the first to come back.
                group.addTask { await Self.answer { try await Self.one(store) } }
                var answers: [Answer<Int>] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            leases.finish()
            #expect(answers.count == connections + 1)
            for answer in answers {
                guard case .value = answer else {
                    Issue.record("a request of a busy pool did not succeed: \(answer)")
                    continue
                }
            }
            await store.close()
        }
    }
}
