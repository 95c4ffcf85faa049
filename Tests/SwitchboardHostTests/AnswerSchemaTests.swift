import Jansson
import SchemaTesting
import SchemaValidation
import Testing

/// The answer checks cannot pass silently: wrong answers are rejected, naming where and why, every
/// schema `rpc.discover` serves uses only what the validator understands, and the harness hook fires.
@Suite("Answers are checked against the schemas from rpc.discover", .offCooperativePool)
struct AnswerSchemaTests {
    static func schemas() throws -> AnswerSchemas { try DiscoveredSchemas.binary.get() }

    static func response(_ result: JSONValue, id: JSONValue = 1) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    static let conversation: JSONValue = [
        "threadId": "m1", "subject": "Hello", "participants": ["ada@example.com"], "messageCount": 1, "unreadCount": 0,
        "latest": ["uid": "m1", "from": "ada@example.com", "snippet": "Hi", "date": "2026-01-01T09:00:00Z"],
    ]

    @Test("a well-formed inbox.list page passes")
    func goodAnswerPasses() throws {
        let page: JSONValue = ["items": [Self.conversation], "nextCursor": nil, "hasMore": false, "state": "42"]
        #expect(try Self.schemas().problems(in: Self.response(page), answering: "inbox.list") == [])
    }

    @Test("wrong answers are rejected, each problem naming its place", arguments: [
        // (method, result, a fragment the problem must contain)
        ("host.ping", JSONValue("ping"), "expected \"pong\""),
        ("inbox.list", ["items": [], "nextCursor": nil], "missing required member \"state\""),
        ("inbox.list", ["items": [], "nextCursor": 7, "state": "1"], "nextCursor: matches 0 of the oneOf"),
        ("host.status", ["inFlight": -1, "shuttingDown": false], "inFlight: -1 breaks minimum"),
        ("host.status", ["inFlight": 0, "shuttingDown": "no"], "shuttingDown: expected boolean"),
        ("mail.folders", ["folders": [["name": "Spam", "total": 0, "unread": 0]], "state": "1"], "folders[0].name: \"Spam\" is not one of"),
        ("mail.get", [
            "uid": "m1", "threadId": "m1", "folder": "Inbox", "from": "ada@example.com", "to": [], "cc": [], "subject": "s",
            "text": "t", "inReplyTo": nil, "date": "2026-13-01T09:00:00Z", "read": false,
        ], "date: \"2026-13-01T09:00:00Z\" is not a valid date-time"),
        ("mail.get", [
            "uid": "m1", "threadId": "m1", "folder": "Inbox", "from": "not an address", "to": [], "cc": [], "subject": "s",
            "text": "t", "inReplyTo": nil, "date": "2026-01-01T09:00:00Z", "read": false,
        ], "from: \"not an address\" is not a valid email"),
        ("inbox.list", ["items": [["threadId": "m1"]], "nextCursor": nil, "state": "1"], "items[0]: missing required member \"latest\""),
        ("feed.page", ["items": [], "nextCursor": nil, "page": 1.5, "pageSize": 10, "hasMore": false, "total": 0, "state": "1"],
         "page: expected integer"),
    ] as [(String, JSONValue, String)])
    func wrongAnswersAreRejected(method: String, result: JSONValue, fragment: String) throws {
        let problems = try Self.schemas().problems(in: Self.response(result), answering: method)
        #expect(!problems.isEmpty, "\(method) accepted \(result.jsonText())")
        #expect(problems.contains { $0.contains(fragment) }, "\(problems)")
    }

    @Test("errors must be JSON-RPC error objects, and responses have exactly one of result and error", arguments: [
        ["jsonrpc": "2.0", "id": 1, "error": ["code": "-32600", "message": "bad"]],
        ["jsonrpc": "2.0", "id": 1, "error": ["code": -32600, "message": ""]],
        ["jsonrpc": "2.0", "id": 1, "error": ["code": -32600, "message": "bad", "extra": 1]],
        ["jsonrpc": "2.0", "id": 1, "error": ["code": -32600]],
        ["jsonrpc": "2.0", "id": 1, "result": "pong", "error": ["code": -32600, "message": "bad"]],
        ["jsonrpc": "2.0", "id": 1],
        ["jsonrpc": "1.0", "id": 1, "result": "pong"],
        ["jsonrpc": "2.0", "id": ["no"], "result": "pong"],
    ] as [JSONValue])
    func badEnvelopesAreRejected(response: JSONValue) throws {
        #expect(try !Self.schemas().problems(in: response, answering: "host.ping").isEmpty, "accepted \(response.jsonText())")
    }

    @Test("every schema rpc.discover serves uses only keywords, formats and references the validator understands")
    func everySchemaIsUnderstood() throws {
        let schemas = try Self.schemas()
        #expect(!schemas.resultSchemas.isEmpty)
        let blind = ["does not support", "unsupported format", "unresolvable $ref", "does not compile", "not an object or boolean"]
        // Values of every kind reach every branch a schema has at its top; the components are walked too.
        let probes: [JSONValue] = [nil, true, 0, 1.5, "x", [], [:]]
        for (method, schema) in schemas.resultSchemas {
            for probe in probes {
                let problems = schemas.validator.problems(of: probe, against: schema, at: method)
                #expect(!problems.contains { problem in blind.contains { problem.contains($0) } }, "\(problems)")
            }
        }
        for (name, schema) in schemas.validator.components {
            let problems = probes.flatMap { schemas.validator.problems(of: $0, against: schema, at: name) }
            #expect(!problems.contains { problem in blind.contains { problem.contains($0) } }, "\(problems)")
        }
        let unknown = SchemaValidator(components: [:]).problems(of: 1, against: ["type": "integer", "multipleOf": 2])
        #expect(unknown.contains { $0.contains("does not support the keyword \"multipleOf\"") }, "an unknown keyword is never skipped")
    }

    @Test("the binary harness reports an answer that does not match the schema of the method its id was sent with")
    func harnessHookFires() throws {
        let host = try SpawnedHost()
        // Send a ping the ledger does not see, and tell the ledger the id was sent with host.status.
        host.checksAnswers = false
        try host.send(BinaryHarness.request(1, "host.ping"))
        host.checksAnswers = true
        host.ledger.recordOutgoing(["jsonrpc": "2.0", "id": 1, "method": "host.status"])
        try withKnownIssue("\"pong\" is not a host.status result") {
            _ = try host.nextMessage()
        } matching: { issue in
            issue.description.contains("does not match its schema") && issue.description.contains("host.status result")
        }
        // A truthful ledger: no issue.
        try host.send(BinaryHarness.request(2, "host.status"))
        #expect(try host.nextMessage()["result"]?["inFlight"] == 0)
    }

    @Test("the in-process harness reports an answer that does not match the schema of the method its id was sent with")
    func inProcessHookFires() async throws {
        let host = try Harness()
        host.checksAnswers = false
        try await host.send(json: request("host.ping", id: 1))
        host.checksAnswers = true
        host.ledger.recordOutgoing(request("host.status", id: 1))
        try await withKnownIssue("\"pong\" is not a host.status result") {
            _ = try await host.reply(to: 1)
        } matching: { issue in
            issue.description.contains("does not match its schema") && issue.description.contains("host.status result")
        }
        #expect(try await host.call("host.status", id: 2).result?["inFlight"] == 0)
    }

    @Test("the ledger maps each response, in a batch too, to the method its id was sent with")
    func ledgerMapsIDs() {
        let ledger = RequestLedger()
        ledger.recordOutgoing([
            ["jsonrpc": "2.0", "id": 1, "method": "host.ping"],
            ["jsonrpc": "2.0", "method": "host.ping"],
            ["jsonrpc": "2.0", "id": "a", "method": "host.status"],
        ])
        ledger.recordOutgoing(["jsonrpc": "2.0", "id": 1, "method": "host.ping"])
        #expect(ledger.answered(by: ["id": "a", "result": 1]) == .method("host.status"))
        #expect(ledger.answered(by: ["id": 1, "result": 1]) == .method("host.ping"))
        #expect(ledger.answered(by: ["id": 1, "result": 1]) == .method("host.ping"))
        #expect(ledger.answered(by: ["id": 1, "result": 1]) == .unknown)
        #expect(ledger.answered(by: ["id": nil, "error": [:]]) == .unknown)
    }
}
