#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// Every method that takes a path (`mail.import`, `catalog.import`, `calendar.import`: the `path`
/// params in Schemas/methods) reads only inside the folders `--allow-read` names, whatever the path
/// says, and no error quotes what a file holds. Hostile paths get `-32602` naming `path`; none hangs
/// the host (a FIFO), none leaks a marker the file or the host's environment holds.
@Suite("Path confinement and file contents, against the binary", .offCooperativePool)
struct BinaryPathSecurityTests {
    typealias H = BinaryHarness

    static let marker = "SECRET-MARKER-7f3a"
    static let methods = ["mail.import", "catalog.import", "calendar.import"]

    /// `allowed/` (the one readable folder) and `outside/secret` beside it, with links, a FIFO and a folder.
    static func folders() throws -> ScratchFolder {
        let folder = try ScratchFolder("paths")
        for name in ["allowed", "allowed/sub", "outside"] { mkdir(folder.path + "/" + name, 0o755) }
        // Valid for every import, so a read that slipped through would succeed and show.
        let secret = #"{"inbox":[],"sectors":[],"note":"\#(marker)"}"#
        folder.write(secret, to: "outside/secret.json")
        symlink(folder.path + "/outside/secret.json", folder.path + "/allowed/link.json")
        symlink("../outside", folder.path + "/allowed/out")
        mkfifo(folder.path + "/allowed/fifo", 0o644)
        return folder
    }

    static func hostilePaths(_ folder: ScratchFolder) -> [String] {
        let allowed = folder.path + "/allowed"
        return [
            allowed + "/../outside/secret.json",
            allowed + "/link.json",
            allowed + "/out/secret.json",
            folder.path + "/outside/secret.json",
            "/proc/self/environ",
            "/proc/self/cmdline",
            "/dev/zero",
            allowed + "/secret\u{0}.json",
            allowed + "/" + String(repeating: "a", count: 300),
            allowed + String(repeating: "/.", count: 3_000) + "/secret.json",
            allowed + "/sub",
            allowed,
            allowed + "/fifo",
            "",
        ]
    }

    static func request(_ id: Int, _ method: String, path: String) -> String {
        H.request(id, method, JSONValue.object(["path": .string(path)]).jsonText())
    }

    @Test(".., links out, /proc, /dev, NUL, over-long paths, folders and a FIFO: each is -32602 naming path, nothing leaks, nothing hangs",
          arguments: methods)
    func hostilePathsAreRefused(_ method: String) throws {
        let folder = try Self.folders()
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory", "--allow-read", folder.path + "/allowed"],
                                   environment: ["SWITCHBOARD_TEST_SECRET": Self.marker])
        let paths = Self.hostilePaths(folder)
        try host.send(paths.enumerated().map { Self.request($0.offset, method, path: $0.element) })
        let answers = try host.answers(to: paths.indices)
        for (offset, path) in paths.enumerated() {
            let answer = answers[offset] ?? .null
            #expect(H.errorCode(answer) == -32602, "\(method) \(path.prefix(120)): \(answer)")
            #expect(answer["error"]?["data"]?["field"] == "path", "\(answer)")
            #expect(!answer.jsonText().contains(Self.marker), "\(method) \(path.prefix(120)) leaked: \(answer)")
        }
        #expect(try host.messagesBeforeMarker().isEmpty)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(!host.stderrText.contains(Self.marker))
    }

    /// Files inside the allowed folder that are not what the method reads, each holding the marker.
    static let invalidFiles: [(name: String, text: String)] = [
        ("broken.json", #"{"inbox": [ \#(marker) ], "sectors": [ \#(marker) ]}"#),
        ("shape.json", #"{"\#(marker)": "\#(marker)", "inbox": "\#(marker)", "sectors": "\#(marker)"}"#),
        ("records.json", #"{"inbox": [{"uid": 7, "from": "\#(marker)", "dateTime": "\#(marker)", "text": 5}], "sectors": [{"id": "\#(marker)", "name": 5, "brochures": [{"id": -1, "title": ["\#(marker)"]}]}]}"#),
        ("binary.json", "{\"inbox\": [\"\(marker)\u{0}\"]}"),
        ("garbage.ics", "\(marker) is not iCalendar\r\n"),
        ("event.ics", """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            UID:one\r
            DTSTART:\(marker)\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:two\r
            DTSTART;TZID=\(marker):20260105T100000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:three\r
            DTSTART:20260105T100000Z\r
            RRULE:FREQ=\(marker)\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:four\r
            DTSTART:20260105T100000Z\r
            DURATION:\(marker)\r
            END:VEVENT\r
            END:VCALENDAR\r

            """),
        ("uids.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
            + "BEGIN:VEVENT\r\nUID:\(marker)-1\r\nDTSTART:20260105T100000Z\r\nRRULE:FREQ=HOURLY\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:\(marker)-2\r\nDTSTART:20260105T100000Z\r\nSUMMARY:\(marker)\(String(repeating: "s", count: 1_000))\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:\(marker)-3\r\nDTSTART:20260105T100000Z\r\nRECURRENCE-ID:20260106T100000Z\r\nEND:VEVENT\r\n"
            + "END:VCALENDAR\r\n"),
        ("unended.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:\(marker)-4\r\nSUMMARY:\(marker)\r\nEND:VCALENDAR\r\n"),
    ]

    @Test("an import of a file with invalid content says what is wrong without quoting it", arguments: methods)
    func errorsDoNotQuoteFiles(_ method: String) throws {
        let folder = try Self.folders()
        for file in Self.invalidFiles { folder.write(file.text, to: "allowed/" + file.name) }
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory", "--allow-read", folder.path + "/allowed", "--log-level", "trace"])
        try host.send(Self.invalidFiles.enumerated().map { Self.request($0.offset, method, path: folder.path + "/allowed/" + $0.element.name) })
        let answers = try host.answers(to: Self.invalidFiles.indices)
        for (offset, file) in Self.invalidFiles.enumerated() {
            let answer = answers[offset] ?? .null
            #expect(!answer.jsonText().contains(Self.marker), "\(method) \(file.name) quoted the file: \(answer)")
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(!host.stderrText.contains(Self.marker), "\(host.stderrText)")
    }
}
