import ChatDomain
import GRDB
#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import SchemaTesting
import SwitchboardCore
import SwitchboardStorage
import Testing

/// No lost wake-up between processes (issue 19, point 17): a commit another connection makes is always
/// followed by a wake-up after which a reader sees it. Each wait is on the wake-up itself; a lost one
/// would hang, and the suite's time limit turns that hang into a failure (cancelled, the wait ends
/// without a wake-up and the round is reported).
@Suite("Database watcher: no lost wake-up", .timeLimit(.minutes(5)))
struct DatabaseWatcherWakeUpTests {
    /// The wake-ups of `signal` from now on, as a sequence (several in a row count as one).
    static func wakeUps(of signal: ChangeSignal) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        signal.listen { continuation.yield() }
        return stream
    }

    /// A watcher on `path` whose thread runs `run()`, as `DomainServices` starts it.
    static func startWatcher(_ path: String, signal: ChangeSignal) throws -> DatabaseWatcher {
        let watcher = DatabaseWatcher(path: path, signal: signal)
        try OSThread.detach(name: "test-watch") { watcher.run() }
        return watcher
    }

    static func touch(_ path: String) {
        _ = utimensat(AT_FDCWD, path, nil, 0)
    }

    @Test("a commit announced after the watcher is made, before its thread runs, wakes it")
    func commitBeforeTheThreadRuns() async throws {
        let folder = try TestScratch.folder("watch-early")
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/early.sqlite"
        let announcement = AppDatabase.announcementPath(for: path)
        DatabaseWatcherTests.append(announcement)  // made by the setup lock
        let signal = ChangeSignal()
        var wakeUps = Self.wakeUps(of: signal).makeAsyncIterator()
        let watcher = DatabaseWatcher(path: path, signal: signal)
        defer { watcher.stop() }
        // Another process commits and announces it while this one's watcher thread has not started yet.
        Self.touch(announcement)
        try OSThread.detach(name: "test-watch") { watcher.run() }
        #expect(await wakeUps.next() != nil, "the commit made before the watcher's thread ran was never announced")
    }

    @Test("when inotify drops events (its queue overflowed), the watcher still wakes its listeners")
    func queueOverflow() async throws {
        let limit = try #require(ScratchFileText.read("/proc/sys/fs/inotify/max_queued_events").flatMap { Int($0) })
        let folder = try TestScratch.folder("watch-overflow")
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/full.sqlite"
        let announcement = AppDatabase.announcementPath(for: path)
        let others = [folder + "/other-a", folder + "/other-b"]
        for file in others + [announcement] { DatabaseWatcherTests.append(file) }
        let signal = ChangeSignal()
        var wakeUps = Self.wakeUps(of: signal).makeAsyncIterator()
        let watcher = DatabaseWatcher(path: path, signal: signal)
        defer { watcher.stop() }
        // Before the watcher reads: more events than inotify queues (alternating files, so none merge),
        // then the commit's announcement, which finds the queue full.
        for index in 0...limit { Self.touch(others[index % 2]) }
        Self.touch(announcement)
        try OSThread.detach(name: "test-watch") { watcher.run() }
        #expect(await wakeUps.next() != nil, "the announcement inotify dropped was never reported")
    }

    @Test("200 rounds: a watcher started as the services open, then a commit from another connection at once; each is seen after a wake-up")
    func freshWatcherRacesACommit() async throws {
        let (writer, reader, folder) = try ChatSharedDatabaseTests.pair()
        defer { _ = system("rm -rf '\(folder)'") }
        let observation = try writer.database.signalChanges(to: ChangeSignal())  // touches PATH.lock after each commit
        defer { observation.cancel() }
        for round in 1...200 {
            // A signal of its own each round: no wake-up of an earlier round's watcher counts.
            let signal = ChangeSignal()
            var wakeUps = Self.wakeUps(of: signal).makeAsyncIterator()
            let watcher = try Self.startWatcher(reader.database.path, signal: signal)
            defer { watcher.stop() }
            let state = try await reader.state()
            _ = try await writer.send(sender: ChatSharedDatabaseTests.me, roomId: "grp-team", text: "\(round)", clientMessageId: "fresh-\(round)")
            guard try await Self.seen(after: state, by: reader, waking: &wakeUps) else {
                Issue.record("round \(round): the commit was never followed by a wake-up that shows it")
                return
            }
        }
    }

    @Test("300 rounds against one long-lived watcher: each commit from another connection is seen after a wake-up")
    func longLivedWatcherRacesCommits() async throws {
        let (writer, reader, folder) = try ChatSharedDatabaseTests.pair()
        defer { _ = system("rm -rf '\(folder)'") }
        let observation = try writer.database.signalChanges(to: ChangeSignal())
        defer { observation.cancel() }
        let signal = ChangeSignal()
        let watcher = try Self.startWatcher(reader.database.path, signal: signal)
        defer { watcher.stop() }
        var wakeUps = Self.wakeUps(of: signal).makeAsyncIterator()
        for round in 1...300 {
            let state = try await reader.state()
            _ = try await writer.send(sender: ChatSharedDatabaseTests.me, roomId: "grp-team", text: "\(round)", clientMessageId: "long-\(round)")
            guard try await Self.seen(after: state, by: reader, waking: &wakeUps) else {
                Issue.record("round \(round): the commit was never followed by a wake-up that shows it")
                return
            }
        }
    }

    /// Waits for wake-ups until one is followed by a read that finds a message after `state`, as a
    /// subscription does; false when the wait ended without one (the time limit cancelled it).
    static func seen(after state: String, by reader: SQLiteChatService,
                     waking wakeUps: inout AsyncStream<Void>.Iterator) async throws -> Bool {
        while await wakeUps.next() != nil {
            if !(try await reader.messages(roomId: "grp-team", after: state, limit: 1).messages.isEmpty) { return true }
        }
        return false
    }
}

/// A small text file's content, trimmed (a /proc value).
enum ScratchFileText {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 0x0A }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
