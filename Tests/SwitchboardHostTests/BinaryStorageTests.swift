import Foundation
import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Opening the database, against the binary: processes racing on a fresh file, failures that name
/// the file and the cause, read-only files, per-domain seeding, what `seed` says, seeding progress.
@Suite("Storage opening, against the binary", .offCooperativePool)
struct BinaryStorageTests {
    typealias H = BinaryHarness

    static let small = ["--feed-items", "100", "--mail-messages", "20", "--calendar-events", "4", "--now", "2026-01-01T09:00:00Z"]

    /// A fresh folder under /tmp, removed by the caller.
    static func folder() throws -> String {
        return try BinaryHarness.temporaryFolder("storage")
    }

    static func run(_ arguments: [String]) throws -> H.Run {
        try H.run(arguments, raw: true, timeout: 60_000)
    }

    /// The binary run with `arguments` in `folder` (a shell changes to it first; no argument holds a quote).
    static func run(_ arguments: [String], in folder: String) throws -> H.Run {
        let words = ([BinaryHarness.binaryPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let host = try SpawnedHost(arguments: ["-c", "cd '\(folder)' && exec \(words)"], executable: "/bin/sh", raw: true)
        host.closeInput()
        try host.readToEndOfOutput(within: 60_000)
        let termination = try host.waitForExit(within: 60_000)
        return H.Run(stdout: String(decoding: host.stdoutBytes, as: UTF8.self), stderr: String(decoding: host.stderrBytes, as: UTF8.self),
                     termination: termination)
    }

    @Test("16 processes started at once on one fresh database all open, migrate, seed and answer", arguments: 1...2)
    func racingFirstRuns(round: Int) throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/race.sqlite"
        let hosts = try (1...16).map { _ in
            try SpawnedHost(arguments: ["call", "inbox.list", #"{"limit":1}"#, "--db", database] + Self.small, raw: true)
        }
        for host in hosts { host.closeInput() }
        for host in hosts {
            try host.readToEndOfOutput(within: 60_000)
            let termination = try host.waitForExit(within: 60_000)
            #expect(termination == .exited(0), "\(host.stderrText)")
            #expect(try JSONValue(parsing: host.stdoutText)["items"]?.arrayValue?.count == 1)
        }
        let seed = try Self.run(["seed", "--db", database] + Self.small)
        #expect(seed.stdout.hasPrefix("already seeded \(database): mail (20 messages), feed (100 items)"))
    }

    @Test("a failed open is retried on the next request: the folder created after the first call is used")
    func failedOpenIsRetried() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/later/data.sqlite"
        let host = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try host.send(H.request(1, "inbox.list", #"{"limit":1}"#))
        let failed = try host.response(to: 1, within: 60_000).response
        #expect(failed["error"]?["code"] == -32050)
        #expect(failed["error"]?["data"]?["path"] == .string(database))
        #expect(failed["error"]?["data"]?["cause"] == .string("its folder \(folder)/later does not exist"))
        #expect(mkdir(folder + "/later", 0o755) == 0)
        try host.send(H.request(2, "inbox.list", #"{"limit":1}"#))
        let answered = try host.response(to: 2, within: 60_000).response
        #expect(answered["result"]?["items"]?.arrayValue?.count == 1, "\(answered)")
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        #expect(host.stderrText.contains("warning: storage unavailable: \(database)"), "warned at start: \(host.stderrText)")
    }

    @Test("each database failure is one error naming the file and the cause, at start for call and as -32050 for requests",
          arguments: ["directory", "garbage", "empty path", "missing folder", "read-only folder", "another program's database"])
    func failuresNameFileAndCause(kind: String) throws {
        let folder = try Self.folder()
        defer { _ = system("chmod -R u+w '\(folder)'; rm -rf '\(folder)'") }
        let path: String
        let cause: String
        switch kind {
        case "directory":
            path = folder + "/adir"
            #expect(mkdir(path, 0o755) == 0)
            cause = "is a directory, not a database file"
        case "garbage":
            path = folder + "/garbage.sqlite"
            #expect(system("head -c 5000 /dev/urandom > '\(path)'") == 0)
            cause = "is not an SQLite database (it does not start with the SQLite header)"
        case "empty path":
            path = ""
            cause = "the database path is empty; give a file name with --db"
        case "missing folder":
            path = folder + "/nowhere/data.sqlite"
            cause = "its folder \(folder)/nowhere does not exist"
        case "read-only folder":
            #expect(mkdir(folder + "/ro", 0o555) == 0)
            path = folder + "/ro/data.sqlite"
            cause = "the database does not exist and its folder \(folder)/ro is read-only, so it cannot be created"
        default:
            path = folder + "/other.sqlite"
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes(text TEXT)") }
            cause = "is an SQLite database of another program (it has no switchboard tables)"
        }
        let call = try Self.run(["call", "inbox.list", "--db", path] + Self.small)
        #expect(call.termination == .exited(1))
        #expect(call.stdout.isEmpty)
        let shown = path.isEmpty ? "\"\"" : path
        #expect(call.stderr.contains("storage unavailable: \(shown): \(cause)"), "\(call.stderr)")
        #expect(!call.stderr.lowercased().contains("sqlite error"), "\(call.stderr)")

        let host = try SpawnedHost(arguments: ["--db", path] + Self.small)
        try host.send(H.request(1, "mail.folders"))
        let error = try host.response(to: 1, within: 60_000).response["error"]
        #expect(error?["code"] == -32050)
        #expect(error?["data"] == ["path": .string(path), "cause": .string(cause)])
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
    }

    @Test("another program's database is refused untouched: its bytes as they were, nothing made beside it",
          arguments: ["call", "serve", "seed"])
    func foreignDatabaseUntouched(command: String) throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/other.sqlite"
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('x')") }
        let before = try #require(FileManager.default.contents(atPath: path))
        switch command {
        case "call":
            #expect(try Self.run(["call", "feed.list", #"{"limit":1}"#, "--db", path] + Self.small).termination == .exited(1))
        case "seed":
            #expect(try Self.run(["seed", "--db", path] + Self.small).termination != .exited(0))
        default:
            let host = try SpawnedHost(arguments: ["--db", path] + Self.small)
            try host.send(H.request(1, "feed.list", #"{"limit":1}"#))
            #expect(try host.response(to: 1, within: 60_000).response["error"]?["code"] == -32050)
            host.closeInput()
            #expect(try host.waitForExit(within: 60_000) == .exited(0))
        }
        #expect(FileManager.default.contents(atPath: path) == before, "the file's bytes changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["other.sqlite"])
    }

    @Test("a --db path that starts with file: is that file, not an SQLite URI")
    func fileColonIsAFileName() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let other = folder + "/other.sqlite"
        try DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE notes(text TEXT)") }
        let before = try #require(FileManager.default.contents(atPath: other))
        for name in ["file:other.sqlite", "file:x.sqlite?mode=memory"] {
            let run = try Self.run(["call", "feed.list", #"{"limit":1}"#, "--db", name] + Self.small, in: folder)
            #expect(run.termination == .exited(0), "\(name): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "the database is the file named \(name)")
        }
        #expect(FileManager.default.contents(atPath: other) == before)
    }

    @Test("a lock file that is a symbolic link is refused, and nothing is made or touched through it")
    func symbolicLockFileRefused() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        #expect(mkdir(folder + "/db", 0o755) == 0 && mkdir(folder + "/else", 0o755) == 0)
        #expect(symlink("../else/created.txt", folder + "/db/a.sqlite.lock") == 0)
        let run = try Self.run(["call", "feed.list", #"{"limit":1}"#, "--db", folder + "/db/a.sqlite"] + Self.small)
        #expect(run.termination == .exited(1))
        #expect(run.stderr.contains("a.sqlite.lock is a symbolic link"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/else/created.txt"))

        // Set up first, then linked: a commit's announcement touches the link, not what it points to.
        let database = folder + "/db/b.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))
        #expect(FileManager.default.createFile(atPath: folder + "/else/victim.txt", contents: Data("keep".utf8)))
        var old = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, folder + "/else/victim.txt", &old, 0) == 0)
        #expect(unlink(database + ".lock") == 0 && symlink("../else/victim.txt", database + ".lock") == 0)
        let send = try Self.run(["call", "chat.send", #"{"roomId":"grp-team","text":"x","clientMessageId":"c1"}"#, "--db", database] + Self.small)
        #expect(send.termination == .exited(0), "\(send.stderr)")
        var info = stat()
        #expect(stat(folder + "/else/victim.txt", &info) == 0)
        #expect(info.st_mtim.tv_sec == 1_000_000, "the file the lock points to was touched")
    }

    @Test("a read-only database serves reads; writes answer -32051 naming the file", arguments: ["file", "folder"])
    func readOnlyDatabase(what: String) throws {
        let folder = try Self.folder()
        defer { _ = system("chmod -R u+w '\(folder)'; rm -rf '\(folder)'") }
        let database = folder + "/data/ro.sqlite"
        #expect(mkdir(folder + "/data", 0o755) == 0)
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))
        let cause = what == "file" ? "the file is read-only" : "its folder \(folder)/data is read-only"
        #expect(chmod(what == "file" ? database : folder + "/data", what == "file" ? 0o444 : 0o555) == 0)
        let read = try Self.run(["call", "inbox.list", #"{"limit":2}"#, "--db", database] + Self.small)
        #expect(read.termination == .exited(0), "\(read.stderr)")
        #expect(try JSONValue(parsing: read.stdout)["items"]?.arrayValue?.count == 2)
        let login = try Self.run(["call", "mail.login", #"{"email":"demo@switchboard.example","password":"x"}"#, "--db", database])
        #expect(login.termination == .exited(0), "an existing account signs in without writing: \(login.stderr)")
        let writes = [("mail.markRead", #"{"uids":["m000001"],"read":true}"#),
                      ("mail.import", #"{"records":[{"uid":"r1","from":"ada@example.com","to":"demo@switchboard.example","subject":"s","dateTime":"Today"}]}"#),
                      ("catalog.import", #"{"document":{"sectors":[{"id":9001,"name":"Neu","url":"https://example.com/neu"}]}}"#)]
        for (method, params) in writes {
            let write = try Self.run(["call", method, params, "--db", database] + Self.small)
            #expect(write.termination == .exited(1), "\(method)")
            let error = try JSONValue(parsing: write.stderr)
            #expect(error["code"] == -32051, "\(method): \(error)")
            #expect(error["data"] == ["path": .string(database), "cause": .string(cause)], "\(method): \(error)")
        }
        // A send answered pending whose store then fails exits 1 as well, the failure on stderr.
        let send = try Self.run(["call", "chat.send", #"{"roomId":"grp-team","text":"hi","clientMessageId":"ro-1"}"#, "--db", database] + Self.small)
        #expect(send.termination == .exited(1), "\(send.stdout) \(send.stderr)")
        #expect(send.stderr.contains(#""state":"failed""#), "\(send.stderr)")
    }

    @Test("a read-only database in a folder this user cannot write serves reads when no -wal or -shm is there (not root: root makes them anyway)")
    func readOnlyFolderForAnotherUser() throws {
        // A folder of its own, open to every user, as the scratch folders are not.
        var template = Array("/tmp/switchboard-ro-XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } })
        defer { _ = system("chmod -R u+w '\(folder)'; rm -rf '\(folder)'") }
        #expect(chmod(folder, 0o755) == 0 && mkdir(folder + "/data", 0o755) == 0)
        let database = folder + "/data/ro.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))
        #expect(access(database + "-wal", F_OK) != 0 && access(database + "-shm", F_OK) != 0, "the last connection removed them")
        #expect(chmod(database, 0o444) == 0 && chmod(folder + "/data", 0o555) == 0)
        // As nobody when run as root (root writes into a read-only folder all the same), else as this user;
        // the call's output read to its end and its exit waited for.
        func callAsAnotherUser() throws -> (SpawnedHost, BinaryHarness.Termination) {
            let call = ["call", "inbox.list", #"{"limit":2}"#, "--db", database] + Self.small
            let host = geteuid() == 0
                ? try SpawnedHost(arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=\(folder)", BinaryHarness.binaryPath] + call,
                                  executable: "/usr/bin/setpriv", raw: true)
                : try SpawnedHost(arguments: call, raw: true)
            host.closeInput()
            try host.readToEndOfOutput(within: 60_000)
            return (host, try host.waitForExit(within: 60_000))
        }
        let (host, ended) = try callAsAnotherUser()
        #expect(ended == .exited(0), "\(host.stderrText)")
        #expect(try JSONValue(parsing: String(decoding: host.stdoutBytes, as: UTF8.self))["items"]?.arrayValue?.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/data").sorted() == ["ro.sqlite", "ro.sqlite.lock", "ro.sqlite.open.lock"])

        // A file its owner may still write is not read as it is: the error says why, and what to do.
        #expect(chmod(database, 0o644) == 0)
        let (writable, refused) = try callAsAnotherUser()
        #expect(refused == .exited(1))
        #expect(writable.stderrText.contains("cannot be read here: SQLite needs \(database)-shm beside it"), "\(writable.stderrText)")
        #expect(!writable.stderrText.contains("reads still work"), "\(writable.stderrText)")
    }

    @Test("seed --reset refuses to delete a file that is not a switchboard database")
    func resetRefusesForeignFiles() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let notes = folder + "/notes.txt"
        #expect(system("printf 'my notes\\n' > '\(notes)'") == 0)
        let text = try Self.run(["seed", "--reset", "--db", notes] + Self.small)
        #expect(text.termination == .exited(1))
        #expect(text.stderr.contains("cannot reset: storage unavailable: \(notes): is not an SQLite database"), "\(text.stderr)")
        let other = folder + "/other.sqlite"
        try DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('keep')") }
        let sqlite = try Self.run(["seed", "--reset", "--db", other] + Self.small)
        #expect(sqlite.termination == .exited(1))
        #expect(sqlite.stderr.contains("\(other): is not a switchboard database; refusing to delete it"), "\(sqlite.stderr)")
        #expect(try DatabaseQueue(path: other).read { db in try String.fetchOne(db, sql: "SELECT text FROM notes") } == "keep")
        var info = stat()
        #expect(stat(notes, &info) == 0 && info.st_size == 9, "the text file is untouched")
        // A switchboard database is reset.
        let ours = folder + "/ours.sqlite"
        #expect(try Self.run(["seed", "--db", ours] + Self.small).termination == .exited(0))
        let reset = try Self.run(["seed", "--reset", "--db", ours, "--feed-items", "7"])
        #expect(reset.termination == .exited(0))
        #expect(reset.stdout == "seeded \(ours): mail (400 messages), feed (7 items), chat (36 messages), catalog (300 brochures), calendar (326 events)\n")
    }

    @Test("seed says what it did: what it seeded, and what was seeded already")
    func seedReports() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/report.sqlite"
        let first = try Self.run(["seed", "--db", database] + Self.small)
        #expect(first.stdout == "seeded \(database): mail (20 messages), feed (100 items), chat (36 messages), catalog (300 brochures), calendar (30 events)\n")
        let again = try Self.run(["seed", "--db", database, "--feed-items", "5"])
        #expect(again.stdout == "already seeded \(database): mail (20 messages), feed (100 items), chat (36 messages), catalog (300 brochures), calendar (30 events); use --reset to seed afresh\n")
    }

    @Test("a domain whose demo data is missing seeds itself; the others are left as they are")
    func domainAddedLaterSeedsItself() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/later.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))
        // As a database seeded before the feed existed: mail seeded, no feed data, no feed flag.
        try DatabasePool(path: database).write { db in
            try db.execute(sql: "DELETE FROM feed_item; DELETE FROM meta WHERE key = 'seed/feed'")
            try db.execute(sql: "UPDATE mail_message SET subject = 'kept' WHERE uid = 'm000001'")
        }
        let call = try Self.run(["call", "feed.get", #"{"id":3}"#, "--db", database] + Self.small)
        #expect(call.termination == .exited(0), "\(call.stderr)")
        #expect(try JSONValue(parsing: call.stdout)["id"] == 3)
        let seed = try Self.run(["seed", "--db", database])
        #expect(seed.stdout == "already seeded \(database): mail (20 messages), feed (100 items), chat (36 messages), catalog (300 brochures), calendar (30 events); use --reset to seed afresh\n")
        let kept = try Self.run(["call", "mail.get", #"{"uid":"m000001"}"#, "--db", database])
        #expect(try JSONValue(parsing: kept.stdout)["subject"] == "kept", "mail was not seeded again")
    }

    @Test("a database seeded with the old single flag counts as seeded for mail and feed")
    func legacySeedFlag() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/legacy.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))
        try DatabasePool(path: database).write { db in
            try db.execute(sql: """
                DELETE FROM meta; INSERT INTO meta(key, value) VALUES ('seed', 'demo-v1');
                DELETE FROM grdb_migrations WHERE identifier = 'meta-seed-per-domain-v1'
                """)
        }
        let seed = try Self.run(["seed", "--db", database])
        // Chat, the catalog and the calendar came after the single flag: they seed themselves (the calendar at its default size), mail and feed count as seeded.
        #expect(seed.stdout == "seeded \(database): chat (36 messages), catalog (300 brochures), calendar (326 events); already seeded: mail (20 messages), feed (100 items)\n")
    }

    @Test("the first call on a fresh database reports $/progress to a request with a token, and lines on stderr in a pipe")
    func seedingProgress() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/progress.sqlite"
        let host = try SpawnedHost(arguments: ["--db", database, "--feed-items", "30000", "--mail-messages", "20"])
        try host.send(H.request(1, "feed.get", #"{"id":1,"_meta":{"progressToken":"seed-1"}}"#))
        let (answer, before) = try host.response(to: 1, within: 120_000)
        #expect(answer["result"]?["id"] == 1, "\(answer)")
        let progress = before.filter { $0["method"] == "$/progress" && $0["params"]?["token"] == "seed-1" }
        #expect(progress.count >= 2, "\(before)")
        // 20 messages, 30,000 feed items, 36 chat messages, the catalog's 300 brochures and the calendar's 326 demo events.
        #expect(progress.last?["params"]?["value"]?["done"] == 30_682)
        #expect(progress.last?["params"]?["value"]?["total"] == 30_682)
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        #expect(host.stderrText.contains("switchboard: seeding demo data into \(database): 20 mail messages, 30000 feed items"))
        #expect(host.stderrText.contains("switchboard: seeding done"))
    }

    @Test("an unknown subcommand lists the subcommands and exits 64")
    func unknownSubcommand() throws {
        let run = try Self.run(["frobnicate"])
        #expect(run.termination == .exited(64))
        #expect(run.stderr.contains("unknown subcommand 'frobnicate'"))
        #expect(run.stderr.contains("SUBCOMMANDS:") && run.stderr.contains("seed"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
