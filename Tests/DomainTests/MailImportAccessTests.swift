import Jansson
import JSONRPC
import MailDomain
import SchemaTesting
import SwitchboardCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `mail.import {path}` reads only inside the allowed folders and says nothing about the rest;
/// `mail.import {records}` takes the same records inline.
@Suite("Mail import: file access and inline records", .postgresStores)
struct MailImportAccessTests {
    /// A fresh allowed folder with a good import file, and a folder outside it with one too.
    final class Folders {
        let base: String
        var allowed: String { base + "/allowed" }
        var outside: String { base + "/outside" }

        init() throws {
            base = try TestScratch.folder("import")
            mkdir(allowed, 0o755)
            mkdir(outside, 0o755)
            let inbox = prototypeInbox([prototypeRecord(uid: "a1"), prototypeRecord(uid: "a2", responseToUid: "a1")])
            write(inbox, to: allowed + "/inbox.json")
            write(inbox, to: outside + "/inbox.json")
        }

        deinit { _ = system("rm -rf '\(base)'") }

        func write(_ text: String, to path: String) {
            let file = fopen(path, "wb")
            _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
            fclose(file)
        }

        func client(_ backend: MailBackend) async throws -> MailRPCClient {
            MailRPCClient(try mailDispatcher(try await backend.make(messages: 0), readRoots: try ReadRoots(resolving: [allowed])))
        }
    }

    @Test("a file inside the allowed folder imports", arguments: MailBackend.allCases)
    func inside(backend: MailBackend) async throws {
        let folders = try Folders()
        let client = try await folders.client(backend)
        let result = try await client.result("mail.import", ["path": .string(folders.allowed + "/inbox.json")])
        #expect(result["imported"] == 2 && result["errors"] == [])
        #expect(try await client.result("mail.thread", ["threadId": "a1"])["messages"]?.strings("uid") == ["a1", "a2"])
    }

    @Test("outside the folder every path gets the same error, whether the file exists or not", arguments: MailBackend.allCases)
    func outside(backend: MailBackend) async throws {
        let folders = try Folders()
        let client = try await folders.client(backend)
        symlink(folders.outside + "/inbox.json", folders.allowed + "/link.json")
        symlink(folders.outside + "/missing.json", folders.allowed + "/dangling.json")
        symlink(folders.outside, folders.allowed + "/out")
        mkfifo(folders.outside + "/fifo", 0o644)
        let paths = [
            folders.outside + "/inbox.json", folders.outside + "/missing.json", folders.outside + "/no/such/dir.json",
            folders.allowed + "/../outside/inbox.json", folders.allowed + "/../outside/missing.json",
            folders.allowed + "/link.json", folders.allowed + "/dangling.json", folders.allowed + "/out/inbox.json",
            folders.outside, folders.outside + "/fifo", "/proc/self/environ", "/etc/passwd", "/root/.bashrc",
        ]
        var answers: Set<String> = []
        for path in paths {
            let error = try await client.error("mail.import", ["path": .string(path)])
            #expect(error["code"] == -32602 && error["data"]?["field"] == "path" && error["data"]?["got"] == .string(JSONValue.string(path).jsonText()), "\(path)")
            let message = try #require(error["message"]?.stringValue)
            answers.insert(message.replacing(JSONValue.string(path).jsonText(), with: "PATH"))
            answers.insert(try #require(error["data"]?["expected"]?.stringValue))
        }
        #expect(answers == [
            "Invalid params: path: expected a file inside the folders this host lets requests read (--allow-read), got PATH",
            "a file inside the folders this host lets requests read (--allow-read)",
        ])
    }

    @Test("inside the folder the reason is given, and a JSON error gives line and column, not the text")
    func reasonsInside() async throws {
        let folders = try Folders()
        let client = try await folders.client(.memory)
        mkdir(folders.allowed + "/sub", 0o755)
        mkfifo(folders.allowed + "/fifo", 0o644)
        folders.write("{\"inbox\": [\n  {\"uid\": secret-token-1234}]}", to: folders.allowed + "/broken.json")
        // A million tiny values: refused before jansson builds them (it took gigabytes).
        folders.write("{\"inbox\": [" + String(repeating: "{},", count: 1 << 20) + "{}]}", to: folders.allowed + "/values.json")
        let cases: [(String, String)] = [
            (folders.allowed + "/missing.json", "a readable file (no such file)"),
            (folders.allowed + "/sub", "a readable file (a folder, not a file)"),
            (folders.allowed + "/fifo", "a readable file (not a regular file)"),
            (folders.allowed + "/broken.json", "a JSON file (not valid JSON: invalid syntax at line 2, column 16)"),
            (folders.allowed + "/values.json", "a JSON file of at most 1048576 values (strings, numbers, objects, arrays…): split it into several imports"),
            ("", "a file path (the path is empty)"),
            (folders.allowed + "/inbox.json\u{0}", "a string without U+0000 (NUL)"),
        ]
        for (path, expected) in cases {
            let error = try await client.error("mail.import", ["path": .string(path)])
            #expect(error["code"] == -32602 && error["data"]?["field"] == "path", "\(path)")
            #expect(error["data"]?["expected"]?.stringValue == expected, "\(path): \(error)")
            #expect(error.jsonText().contains("secret-token") == false)
        }
    }

    @Test("records inline import like a file's, with errors by index", arguments: MailBackend.allCases)
    func inline(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0), readRoots: .empty))
        let records: [JSONValue] = [
            prototypeRecord(uid: "r2", responseToUid: "r1", dateTime: "2025-12-02T10:00:00Z"),
            prototypeRecord(uid: "r1", dateTime: "2025-12-01T10:00:00Z"),
            42,
            prototypeRecord(uid: "r3", from: "nobody"),
            prototypeRecord(uid: "r1"),
        ]
        let result = try await client.result("mail.import", ["records": .array(records)])
        #expect(result["imported"] == 2 && result["skipped"] == 1)
        #expect(result["errors"]?.arrayValue?.map { $0["index"]?.int64Value } == [2, 3])
        let reasons = result["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        #expect(reasons.count == 2 && reasons[0].hasPrefix("expected an object") && reasons[1].hasPrefix("from: expected an email address"))
        #expect(try await client.result("mail.thread", ["threadId": "r1"])["messages"]?.strings("uid") == ["r1", "r2"])
        #expect(try await client.result("mail.import", ["records": []])["imported"] == 0)
    }

    @Test("a record whose text holds U+0000 is refused by index, not stored cut short", arguments: MailBackend.allCases)
    func nulInRecords(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0), readRoots: .empty))
        let record = prototypeRecord(uid: "n1", subject: "before\u{0}after")
        let result = try await client.result("mail.import", ["records": [record, prototypeRecord(uid: "n2")]])
        #expect(result["imported"] == 1)
        #expect(result["errors"]?.arrayValue?.map { $0["index"]?.int64Value } == [0])
        #expect(result["errors"]?.arrayValue?.first?["reason"]?.stringValue?.hasPrefix("subject:") == true)
    }

    @Test("exactly one of path and records; records is an array")
    func oneSource() async throws {
        let client = MailRPCClient(try mailDispatcher(InMemoryMailService(clock: mailTestClock, demoMessages: 0), readRoots: .empty))
        let both = try await client.error("mail.import", ["path": "x.json", "records": []])
        #expect(both["code"] == -32602 && both["data"]?["expected"] == "exactly one of path and records" && both["data"]?["got"] == "both")
        let neither = try await client.error("mail.import", [:])
        #expect(neither["code"] == -32602 && neither["data"]?["got"] == "neither")
        let object = try await client.error("mail.import", ["records": ["inbox": []]])
        #expect(object["code"] == -32602 && object["data"]?["field"] == "records")
        #expect(try await client.error("mail.import", ["path": "Package.swift"])["data"]?["expected"]
                == "a file inside the folders this host lets requests read (--allow-read)")
    }
}
