import Jansson
import JSONRPC
import MailDomain
import PropertyBased
import SwitchboardCore
import PostgresTesting
import Testing

/// Search queries and email addresses on any input (issue 6, point 1): a value or a clear error,
/// never a trap, on both mail services.
@Suite("Search queries and addresses, any input", .postgresStores)
struct SearchAndAddressPropertyTests {
    /// A page, or for a query holding U+0000 (which no stored text can match) `-32602` naming `query`.
    static func expectAnswer(_ response: JSONValue, to query: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if query.unicodeScalars.contains("\u{0}") {
            #expect(response["error"]?["data"]?["field"] == "query", "\(response.jsonText().prefix(300))", sourceLocation: sourceLocation)
        } else {
            #expect(response["result"]?["items"]?.arrayValue != nil, "\(query.debugDescription): \(response.jsonText().prefix(300))",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("any query up to the limit gives a page on both services, which agree on queries of ASCII words")
    func anyQuery() async throws {
        let memory = MailRPCClient(try mailDispatcher(try await MailBackend.memory.make()))
        let sqlite = MailRPCClient(try mailDispatcher(try await MailBackend.sqlite.make()))
        // PostgreSQL folds stored text as memory does, so the two agree on every query.
        let postgres: MailRPCClient?
        if TestPostgres.isAvailable {
            postgres = MailRPCClient(try mailDispatcher(try await MailBackend.postgres.make()))
        } else {
            postgres = nil
        }
        await propertyCheck(count: 400, input: PropertyInputs.text(PropertyInputs.queryPieces, count: 0...12)) { query in
            let params: JSONValue = ["query": .string(query), "limit": 20]
            let inMemory = try await memory.call("mail.search", params)
            let inSQLite = try await sqlite.call("mail.search", params)
            Self.expectAnswer(inMemory, to: query)
            Self.expectAnswer(inSQLite, to: query)
            if let postgres {
                let inPostgres = try await postgres.call("mail.search", params)
                Self.expectAnswer(inPostgres, to: query)
                #expect(inPostgres["result"]?["items"] == inMemory["result"]?["items"], "\(query.debugDescription)")
            }
            if query.unicodeScalars.allSatisfy({ $0.isASCII }) {
                #expect(inMemory["result"]?["items"]?.strings("uid") == inSQLite["result"]?["items"]?.strings("uid"), "\(query.debugDescription)")
            }
        }
    }

    @Test("queries of hostile text at the size limit, and past it, on both services", arguments: MailBackend.allCases)
    func longQueries(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make()))
        for piece in ["\"", "NEAR(", "*", "a ", "\u{0}", "😀", "e\u{301}", "\u{301}"] {
            let count = 1_000 / piece.unicodeScalars.count
            let atLimit = String(repeating: piece, count: count)
            let answer = try await client.call("mail.search", ["query": .string(atLimit)])
            if piece == "NEAR(" {
                // One word of 200 parts (near-near-…): more parts than a query may have, refused naming query.
                #expect(answer["error"]?["data"]?["field"] == "query" && answer["error"]?["data"]?["got"] == "200 parts", "\(answer)")
            } else {
                Self.expectAnswer(answer, to: atLimit)
            }
            let over = try await client.error("mail.search", ["query": .string(atLimit + "xx")])
            #expect(over["data"]?["field"] == "query")
        }
    }

    @Test("any text is an address (lower-cased, at most 254 bytes, one @) or nil")
    func anyAddress() async {
        await propertyCheck(count: 3_000, input: PropertyInputs.text(PropertyInputs.addressPieces, count: 0...20)) { text in
            guard let address = EmailAddress.normalized(text) else { return }
            #expect(address == address.lowercased())
            #expect(address.utf8.count <= 254)
            #expect(address.split(separator: "@", omittingEmptySubsequences: false).count == 2, "\(address)")
            #expect(EmailAddress.normalized(address) == address, "normalizing twice changes nothing")
        }
    }

    @Test("any to/cc value gets a message sent or -32602 naming to, cc or an element of them")
    func anyAddressField() async throws {
        let client = MailRPCClient(try mailDispatcher(try await MailBackend.memory.make(messages: 0)))
        let address = PropertyInputs.text(PropertyInputs.addressPieces, count: 0...8)
        await propertyCheck(count: 300, input: address.array(of: 0...3), Gen.bool) { addresses, asArray in
            let to: JSONValue = asArray || addresses.isEmpty ? .array(addresses.map { .string($0) }) : .string(addresses[0])
            let response = try await client.call("mail.send", ["to": to, "cc": .array(addresses.map { .string($0) }), "subject": "s", "text": "t"])
            if let error = response["error"] {
                #expect(error["code"] == -32602, "\(response.jsonText())")
                let field = error["data"]?["field"]?.stringValue ?? ""
                #expect(field.hasPrefix("to") || field.hasPrefix("cc"), "\(response.jsonText())")
            } else {
                #expect(response["result"]?["message"]?["uid"]?.stringValue != nil)
            }
        }
    }
}
