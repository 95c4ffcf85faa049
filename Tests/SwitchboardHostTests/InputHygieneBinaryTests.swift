import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 6, points 11 and 14, against the built binary over real pipes: `U+0000` in params, unknown
/// members, an 8 MB cursor, `--account`.
@Suite("Input hygiene, against the binary", .offCooperativePool)
struct InputHygieneBinaryTests {
    static let now = "2026-01-01T09:00:00Z"

    @Test("`--account` is validated like mail.login's email, at start", arguments: ["not-an-address", "a@b", "x@y..com"])
    func badAccount(account: String) throws {
        let run = try BinaryHarness.run(["call", "--backend", "memory", "--account", account, "inbox.list"], raw: true)
        #expect(run.termination == .exited(64), "\(run.stderr)")
        #expect(run.stderr.contains("--account") && run.stderr.contains("email address"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let good = try BinaryHarness.run(["call", "--backend", "memory", "--account", "Ada@Example.com", "mail.folders"], raw: true)
        #expect(good.termination == .exited(0), "\(good.stderr)")
    }

    /// A serving host on the in-memory service, or on a fresh SQLite file.
    static func host(_ backend: String, folder: String) throws -> SpawnedHost {
        let storage = backend == "memory" ? ["--backend", "memory"] : ["--db", folder + "/mail.sqlite", "--feed-items", "100", "--mail-messages", "150"]
        return try SpawnedHost(arguments: storage + ["--now", now])
    }

    static func temporaryFolder() throws -> String {
        return try BinaryHarness.temporaryFolder("hygiene")
    }

    static func error(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        try host.send(BinaryHarness.request(id, method, params))
        let reply = try host.response(to: .integer(Int64(id))).response
        return try #require(reply["error"], "\(method) should fail: \(reply)", sourceLocation: sourceLocation)
    }

    static func result(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        try host.send(BinaryHarness.request(id, method, params))
        let reply = try host.response(to: .integer(Int64(id))).response
        return try #require(reply["result"], "\(method) failed: \(reply)", sourceLocation: sourceLocation)
    }

    @Test("U+0000, unknown members and an 8 MB cursor are -32602 naming the field, in small replies", arguments: ["memory", "sqlite"])
    func refusals(backend: String) throws {
        let folder = try Self.temporaryFolder()
        defer { _ = system("rm -rf '\(folder)'") }
        let host = try Self.host(backend, folder: folder)

        let subject = try Self.error(host, 1, "mail.send", #"{"to":"ann@example.com","subject":"before\u0000after","text":"x"}"#)
        #expect(subject["code"] == -32602 && subject["data"]?["field"] == "subject", "\(subject)")

        let message = try Self.result(host, 2, "mail.get", #"{"uid":"m000124"}"#)
        let read = try #require(message["read"]?.boolValue as Bool?)
        let uid = try Self.error(host, 3, "mail.markRead", #"{"uids":["m000124\u0000zzz"],"read":\#(!read)}"#)
        #expect(uid["code"] == -32602 && uid["data"]?["field"] == "uids[0]", "\(uid)")
        #expect(try Self.result(host, 4, "mail.get", #"{"uid":"m000124"}"#)["read"] == .bool(read))

        let bcc = try Self.error(host, 5, "mail.send", #"{"to":"ann@example.com","subject":"s","text":"t","bcc":"eve@example.com"}"#)
        #expect(bcc["code"] == -32602 && bcc["data"]?["field"] == "bcc", "\(bcc)")
        let ping = try Self.error(host, 6, "host.ping", #"{"x":1}"#)
        #expect(ping["data"]?["field"] == "x", "\(ping)")
        #expect(try Self.result(host, 7, "host.echo", #"{"x":1}"#) == ["x": 1])
        let hello = try Self.result(host, 8, "initialize", #"{"processId":null,"capabilities":{},"rootUri":null,"clientInfo":{"name":"t"}}"#)
        #expect(hello["serverInfo"]?["name"] == "switchboard")
        _ = try Self.result(host, 9, "host.sleep", #"{"ms":0,"_meta":{"progressToken":"p"}}"#)

        let cursor = String(repeating: "A", count: 8 << 20)
        try host.send(BinaryHarness.request(10, "inbox.list", #"{"cursor":"\#(cursor)"}"#), within: 30_000)
        let reply = try host.response(to: 10, within: 30_000).response
        #expect(reply.jsonText().utf8.count < 1_000, "\(reply.jsonText().prefix(1_000))")
        #expect(reply["error"]?["data"]?["field"] == "cursor")

        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}

extension JSONValue {
    /// The string members `key` of the objects of an array.
    func strings(_ key: String) -> [String] {
        (arrayValue ?? []).compactMap { $0[key]?.stringValue }
    }
}
