import FeedDomain
import GRDB
import Jansson
import JSONRPC
import MailDomain
import PropertyBased
import SwitchboardCore
import SwitchboardStorage
import Testing

/// Cursors whose checksum is right but whose sort key and id were written by hand: anyone can make
/// one with the public format. Every list answers a page or `-32602` naming `cursor`, never a trap
/// (issue 6, point 1: `feed.list` trapped on an id of Int64.max).
@Suite("Crafted cursors on every list", .postgresStores)
struct CraftedCursorTests {
    static let account = DemoAccount.email

    static let keyPieces = ["0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                            "99999999999999999999", ":", "::", "", " ", "x", "1767258000000", "\u{1F}", "é", "m000124", "t1"]

    /// The list ids each method checks its cursors against.
    static let lists: [(method: String, list: String, params: JSONObject)] = [
        ("feed.list", "feed", [:]),
        ("inbox.list", "inbox/\(account)/Inbox/all", [:]),
        ("inbox.list", "inbox/\(account)/Sent/unread", ["folder": "sent", "unreadOnly": true]),
        ("mail.search", "search/\(account)/budget", ["query": "budget"]),
    ]

    static func expectPageOrCursorError(_ response: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        if let error = response["error"] {
            #expect(error["code"] == -32602 && error["data"]?["field"] == "cursor", "\(response.jsonText())", sourceLocation: sourceLocation)
        } else {
            #expect(response["result"]?["items"]?.arrayValue != nil, "\(response.jsonText())", sourceLocation: sourceLocation)
        }
    }

    @Test("any sort key and id in a well-formed cursor gives a page or the cursor error", arguments: MailBackend.allCases)
    func craftedCursors(backend: MailBackend) async throws {
        let feed: any FeedService
        switch backend {
        case .memory, .postgres:
            feed = InMemoryFeedService(demoCount: 200)
        case .sqlite, .sqliteFile:
            let database = try AppDatabase(path: backend == .sqlite ? ":memory:" : temporaryDatabasePath(), migrations: SQLiteFeedService.migrations)
            try await database.writer.write { db in try SQLiteFeedService.seed(db, count: 200) }
            feed = SQLiteFeedService(database: database)
        }
        var registry = MethodRegistry.mailMethods(try await backend.make(), defaultAccount: Self.account, clock: mailTestClock)
        registry.add(.feedMethods(feed))
        let client = MailRPCClient(try registry.freeze())
        let key = PropertyInputs.text(Self.keyPieces, count: 0...4)
        await propertyCheck(count: 300, input: Gen.int(in: 0...(Self.lists.count - 1)), key, key) { index, sortKey, id in
            let target = Self.lists[index]
            var params = target.params
            params["cursor"] = .string(Cursor(list: target.list, sortKey: sortKey, id: id).encoded)
            Self.expectPageOrCursorError(try await client.call(target.method, .object(params)))
        }
        for id in ["9223372036854775807", "9223372036854775806", "-1", "0"] {
            let cursor = Cursor(list: "feed", sortKey: "", id: id).encoded
            Self.expectPageOrCursorError(try await client.call("feed.list", ["cursor": .string(cursor)]))
        }
    }
}
