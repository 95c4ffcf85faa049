import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// LISTEN/NOTIFY as a wake-up: another connection's committed write wakes the domain's subscribers, and
/// a lost listening connection is made again, posting every signal so subscribers catch up from the log.
@Suite("PostgreSQL: the change listener", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresChangeListenerTests {
    static let logger = TestPostgres.logger

    /// Counts a signal's posts and lets a test wait for the count to pass a mark.
    final class PostCounter: Sendable {
        let count = SharedCount()
        let stream: AsyncStream<Int>
        private let continuation: AsyncStream<Int>.Continuation

        init(_ signal: ChangeSignal) {
            (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            signal.listen { [count, continuation] in continuation.yield(count.add()) }
        }

        /// Waits for a post after the `mark`-th.
        func waitForPost(after mark: Int) async -> Int? {
            for await value in stream where value > mark { return value }
            return nil
        }
    }

    static func write(_ connection: PostgresConnection, domain: String, item: String) async throws {
        _ = try await connection.withTransaction(logger: logger) { connection in
            try await PostgresChangeLog.record(connection, domain: domain, itemID: item, kind: .created, logger: logger)
        }
    }

    static func nextListening(_ events: inout AsyncStream<PostgresChangeListener.Event>.Iterator) async -> (pid: Int32, lost: [String])? {
        var lost: [String] = []
        while let event = await events.next() {
            switch event {
            case .listening(let pid): return (pid, lost)
            case .lost(let cause, _): lost.append(cause)
            }
        }
        return nil
    }

    @Test("a committed write on another connection wakes its domain; a killed listening connection is made again and wakes everyone")
    func wakesAndReconnects() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let writer = try await TestPostgres.connect(settings)
            try await PostgresMigrator.migrate([PostgresChangeLog.migrations], on: writer, logger: Self.logger)
            let chat = ChangeSignal()
            let calendar = ChangeSignal()
            let chatPosts = PostCounter(chat)
            let calendarPosts = PostCounter(calendar)
            let listener = PostgresChangeListener(settings: settings, signals: ["chat": chat, "calendar": calendar], logger: Self.logger)
            var events = listener.events.makeAsyncIterator()
            let running = Task { await listener.run() }

            guard let first = await Self.nextListening(&events) else { Issue.record("the listener never listened"); return }
            // Connecting posted every signal once (subscribers catch up from the log).
            let chatMark = chatPosts.count.value
            #expect(chatMark >= 1)
            #expect(calendarPosts.count.value >= 1)

            try await Self.write(writer, domain: "chat", item: "m1")
            #expect(await chatPosts.waitForPost(after: chatMark) != nil)

            // A scope (mail/ACCOUNT style) notifies its domain's channel.
            let calendarMark = calendarPosts.count.value
            try await Self.write(writer, domain: "calendar/team", item: "e1")
            #expect(await calendarPosts.waitForPost(after: calendarMark) != nil)

            // The server ends the listening connection; the listener reports it, connects again, and posts.
            let beforeKill = chatPosts.count.value
            try await writer.query("SELECT pg_terminate_backend(\(first.pid))", logger: Self.logger)
            guard let second = await Self.nextListening(&events) else { Issue.record("the listener did not come back"); return }
            #expect(second.pid != first.pid)
            #expect(!second.lost.isEmpty)
            let afterReconnect = chatPosts.count.value
            #expect(afterReconnect > beforeKill)

            try await Self.write(writer, domain: "chat", item: "m2")
            #expect(await chatPosts.waitForPost(after: afterReconnect) != nil)

            running.cancel()
            await running.value
            try await writer.close()
        }
    }

    @Test("a server that is not there: the listener reports the cause and tries again, until cancelled")
    func retriesWhileDown() async throws {
        let port = try TestPostgres.closedPort()
        let settings = try TestPostgres.settings(url: "postgres://switchboard@127.0.0.1:\(port)/postgres?sslmode=disable")
        let listener = PostgresChangeListener(settings: settings, signals: ["chat": ChangeSignal()], logger: Self.logger)
        var events = listener.events.makeAsyncIterator()
        let running = Task { await listener.run() }
        var retries: [Int] = []
        while retries.count < 3, let event = await events.next() {
            if case .lost(let cause, let retry) = event {
                #expect(cause.contains("connection refused"), "\(cause)")
                retries.append(retry)
            }
        }
        #expect(retries == [100, 200, 400])
        running.cancel()
        await running.value
    }
}
