#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// `mail.import` against the built binary: `--allow-read` and its defaults over real pipes, and a
/// second process writing to the database while a large import runs.
@Suite("Binary: mail.import", .offCooperativePool)
struct BinaryImportTests {
    /// A fresh folder with `allowed/`, `outside/` and `data/switchboard/` (a data folder), each holding an import file.
    final class Folders {
        let base: String
        var allowed: String { base + "/allowed" }
        var outside: String { base + "/outside" }
        var dataHome: String { base + "/data" }

        init() throws {
            base = try BinaryHarness.temporaryFolder("binimport")
            for folder in [allowed, outside, dataHome, dataHome + "/switchboard"] { mkdir(folder, 0o755) }
            for folder in [allowed, outside, dataHome + "/switchboard"] { write(Self.inbox(count: 2, prefix: "x"), to: folder + "/inbox.json") }
        }

        deinit { _ = system("rm -rf '\(base)'") }

        func write(_ text: String, to path: String) {
            let file = fopen(path, "wb")
            _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
            fclose(file)
        }

        /// `{"inbox": [...]}` with `count` messages in one reply chain.
        static func inbox(count: Int, prefix: String) -> String {
            let records = (0..<count).map { index -> String in
                let reply = index == 0 ? "" : "\(prefix)\(index - 1)"
                return #"{"uid":"\#(prefix)\#(index)","from":"ada@example.com","to":"demo@switchboard.example","subject":"chain","text":"reply \#(index)","responseToUid":"\#(reply)","dateTime":"2025-12-01T10:00:00Z"}"#
            }
            return #"{"inbox":["# + records.joined(separator: ",") + "]}"
        }
    }

    static let memory = ["--backend", "memory", "--mail-messages", "0", "--now", "2026-01-01T09:00:00Z"]

    static func importRequest(_ id: Int, path: String) -> String {
        BinaryHarness.request(id, "mail.import", JSONValue.object(["path": .string(path)]).jsonText())
    }

    /// The error message with the path it quotes taken out: what must not differ between outside paths.
    static func refusal(_ response: JSONValue, path: String) -> String? {
        response["error"]?["message"]?.stringValue?.replacing(JSONValue.string(path).jsonText(), with: "PATH")
    }

    @Test("--allow-read DIR: inside imports; outside, an existing and a missing file get the same error")
    func allowRead() throws {
        let folders = try Folders()
        let host = try SpawnedHost(arguments: ["serve"] + Self.memory + ["--allow-read", folders.allowed])
        try host.send(Self.importRequest(1, path: folders.allowed + "/inbox.json"))
        #expect(try host.response(to: 1).response["result"]?["imported"] == 2)
        var refusals: Set<String?> = []
        let outside = [folders.outside + "/inbox.json", folders.outside + "/missing.json", folders.allowed + "/../outside/inbox.json",
                       folders.dataHome + "/switchboard/inbox.json", "/proc/self/environ"]
        for (offset, path) in outside.enumerated() {
            try host.send(Self.importRequest(2 + offset, path: path))
            let response = try host.response(to: .integer(Int64(2 + offset))).response
            #expect(BinaryHarness.errorCode(response) == -32602, "\(path): \(response)")
            refusals.insert(Self.refusal(response, path: path))
        }
        #expect(refusals == ["Invalid params: path: expected a file inside the folders this host lets requests read (--allow-read), got PATH"])
        try host.send(BinaryHarness.request(9, "mail.import", #"{"records":[{"uid":"i1","from":"ada@example.com","to":"demo@switchboard.example","dateTime":"Today"}]}"#))
        #expect(try host.response(to: 9).response["result"]?["imported"] == 1)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("by default the current directory and the data folder are readable, nothing else (bare switchboard too)",
          arguments: [["serve"] + BinaryImportTests.memory, []])
    func defaults(arguments: [String]) throws {
        let folders = try Folders()
        if arguments.isEmpty {
            // A bare `switchboard` serves the default SQLite store in the data folder: seed it small first.
            let seed = try BinaryHarness.run(["seed", "--db", folders.dataHome + "/switchboard/switchboard.sqlite",
                                              "--feed-items", "0", "--mail-messages", "0"], raw: true, timeout: 60_000)
            #expect(seed.termination == .exited(0), "\(seed.stderr)")
        }
        // The host runs in `allowed` with XDG_DATA_HOME pointing at `data`.
        let host = try SpawnedHost(arguments: ["-c", #"cd "$0" && exec "$@""#, folders.allowed, BinaryHarness.binaryPath] + arguments,
                                   environment: ["XDG_DATA_HOME": folders.dataHome, "SWITCHBOARD_NOW": "2026-01-01T09:00:00Z"],
                                   executable: "/bin/sh")
        try host.send(Self.importRequest(2, path: "inbox.json"))
        #expect(try host.response(to: 2, within: 60_000).response["result"]?["skipped"] != nil)
        try host.send(Self.importRequest(3, path: folders.dataHome + "/switchboard/inbox.json"))
        #expect(try host.response(to: 3).response["result"] != nil)
        var refusals: Set<String?> = []
        for (offset, path) in [folders.outside + "/inbox.json", folders.outside + "/missing.json", "../outside/inbox.json"].enumerated() {
            try host.send(Self.importRequest(4 + offset, path: path))
            refusals.insert(Self.refusal(try host.response(to: .integer(Int64(4 + offset))).response, path: path))
        }
        #expect(refusals == ["Invalid params: path: expected a file inside the folders this host lets requests read (--allow-read), got PATH"])
        host.closeInput()
        #expect(try host.waitForExit(within: 30_000) == .exited(0))
    }

    @Test("call takes --allow-read too, and refuses a folder that does not exist")
    func call() throws {
        let folders = try Folders()
        let params = JSONValue.object(["path": .string(folders.allowed + "/inbox.json")]).jsonText()
        let run = try BinaryHarness.run(["call"] + Self.memory + ["--allow-read", folders.allowed, "mail.import", params], raw: true)
        #expect(run.termination == .exited(0), "\(run.stderr)")
        #expect(try JSONValue(parsing: run.stdout)["imported"] == 2)
        let outside = try BinaryHarness.run(["call"] + Self.memory + ["--allow-read", folders.outside + "/none", "mail.import", params], raw: true)
        #expect(outside.termination == .exited(64), "\(outside.stderr)")
        #expect(outside.stderr.contains("--allow-read \(folders.outside)/none: no such folder"))
    }
}
