#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Synchronization
import SchemaTesting
import SwitchboardCore
import SwitchboardStorage
import Testing

/// The wake-up behind cross-process subscriptions: a write to the database's WAL file by anyone
/// posts the change signal, through inotify and through the polling fallback alike.
@Suite("Database watcher")
struct DatabaseWatcherTests {
    static func folder() throws -> String {
        try TestScratch.folder("watch")
    }

    static func append(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        _ = write(fd, "x", 1)
        close(fd)
    }

    /// Waits until `condition` holds, checking every 10 ms; false after the 30 s hang guard.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    @Test("a write to PATH-wal, or a commit announced on PATH.lock, posts the signal; stop() ends the watcher",
          arguments: [DatabaseWatcher.Mode.automatic, .polling], ["-wal", ".lock"])
    func walWrites(mode: DatabaseWatcher.Mode, file suffix: String) throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/watched.sqlite"
        let signal = ChangeSignal()
        let posts = Atomic(0)
        signal.listen { posts.add(1, ordering: .relaxed) }
        if suffix == ".lock" { Self.append(AppDatabase.announcementPath(for: path)) }   // made by the setup lock
        let watcher = DatabaseWatcher(path: path, signal: signal, mode: mode)
        let ended = Atomic(false)
        try OSThread.detach(name: "test-watch") {
            watcher.run()
            ended.store(true, ordering: .relaxed)
        }
        // Written until noticed: the watcher may start watching after a first write.
        var writes = 0
        #expect(Self.eventually {
            if writes % 10 == 0 {
                if suffix == ".lock" {
                    // What a committing process does (AppDatabase.signalChanges): only the file's times change.
                    _ = utimensat(AT_FDCWD, AppDatabase.announcementPath(for: path), nil, 0)
                } else {
                    Self.append(path + suffix)
                }
            }
            writes += 1
            return posts.load(ordering: .relaxed) > 0
        })
        watcher.stop()
        #expect(Self.eventually { ended.load(ordering: .relaxed) }, "run() did not end after stop()")
    }

    @Test("inotify event names are read from the raw buffer, several events in one read, a cut one ignored")
    func eventNames() {
        func event(_ name: String) -> [UInt8] {
            var padded = Array(name.utf8) + [0]
            while padded.count % 16 != 0 { padded.append(0) }
            let length = UInt32(padded.count)
            return [1, 0, 0, 0] + [2, 0, 0, 0] + [0, 0, 0, 0] + withUnsafeBytes(of: length.littleEndian, Array.init) + padded
        }
        let bytes = event("db.sqlite-wal") + event("other") + event("db.sqlite")
        #expect(DatabaseWatcher.names(in: bytes[...]) == ["db.sqlite-wal", "other", "db.sqlite"])
        #expect(DatabaseWatcher.names(in: bytes.prefix(12)).isEmpty)
    }
}
