import FeedDomain
import Jansson
import JSONRPC
import Logging
import SwitchboardCore
import SwitchboardHost
import Testing

/// The feed's methods through the JSON-RPC layer, in process; those that read or write the feed on
/// every backend (PostgreSQL's when the test server is there), those of the method layer alone in memory.
@Suite("Feed methods")
struct FeedMethodsTests {
    /// The methods of a feed holding the demo items `1...1_000`.
    struct Methods {
        let feed: any FeedService
        let dispatcher: Dispatcher

        init(_ feed: any FeedService) throws {
            self.feed = feed
            dispatcher = try MethodRegistry.feedMethods(feed).freeze()
        }

        /// Calls `method`; the answer is checked against its result schema (or the error shape) from `rpc.discover`.
        func call(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> InProcessCall.Outcome {
            let outcome = await InProcessCall.call(method, params: params, dispatcher: dispatcher, logger: Logger(label: "test"))
            DomainSchemas.expectValid(outcome.response, answering: method, sourceLocation: sourceLocation)
            return outcome
        }
    }

    /// Runs `body` with the methods of `backend`'s demo feed (on PostgreSQL a database of its own, dropped after).
    static func with(_ backend: FeedServiceTests.Backend, _ body: (Methods) async throws -> Void) async throws {
        try await FeedServiceTests.withFeed(backend) { feed in try await body(try Methods(feed)) }
    }

    /// The in-memory feed's methods, for what the method layer decides alone.
    let memory: Methods

    init() throws {
        memory = try Methods(InMemoryFeedService(demoCount: FeedServiceTests.demoCount))
    }

    func call(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> InProcessCall.Outcome {
        await memory.call(method, params, sourceLocation: sourceLocation)
    }

    @Test("feed.list pages through the feed with nextCursor, then null at the end", arguments: FeedServiceTests.Backend.available)
    func listPages(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            var cursor: JSONValue = .null
            var ids: [Int64] = []
            var pages = 0
            repeat {
                var params: JSONObject = ["limit": 300]
                if cursor != .null { params["cursor"] = cursor }
                let result = try #require(await methods.call("feed.list", .object(params)).result)
                ids += result["items"]!.arrayValue!.map { $0["id"]!.int64Value! }
                #expect(result["total"] == 1_000)
                #expect(result["state"]?.stringValue?.hasPrefix("feed-") == true)
                cursor = result["nextCursor"]!
                #expect((cursor == .null) == (result["hasMore"] == false))
                pages += 1
            } while cursor != .null
            #expect(ids == Array(1...1_000))
            #expect(pages == 4)
        }
    }

    @Test("items appended between two page requests are neither skipped nor repeated", arguments: FeedServiceTests.Backend.available)
    func stableUnderInserts(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let first = try #require(await methods.call("feed.list", ["limit": 500]).result)
            _ = try await methods.feed.append([DemoFeed.profile(1), DemoFeed.profile(2)])
            let second = try #require(await methods.call("feed.list", ["limit": 500, "cursor": first["nextCursor"]!]).result)
            let third = try #require(await methods.call("feed.list", ["limit": 500, "cursor": second["nextCursor"]!]).result)
            let pages = [first, second, third].flatMap { $0["items"]!.arrayValue! }
            #expect(pages.map { $0["id"]!.int64Value! } == Array(1...1_002))
            #expect(third["nextCursor"] == .null)
            #expect(third["total"] == 1_002)
        }
    }

    @Test("a malformed or edited cursor is -32602 naming cursor", arguments: ["garbage", "", "ZmVlZB8fMh8wMDAwMDAwMA", "!!!"])
    func badCursor(cursor: String) async throws {
        let error = try #require(await call("feed.list", ["cursor": .string(cursor)]).error)
        #expect(error["code"] == -32602)
        #expect(error["data"]?["field"] == "cursor")
    }

    @Test("a cursor from another list is refused, naming cursor and the other list")
    func cursorFromAnotherList() async throws {
        let foreign = Cursor(list: "inbox/demo@switchboard.example/Inbox/all", sortKey: "1", id: "5").encoded
        let error = try #require(await call("feed.list", ["cursor": .string(foreign)]).error)
        #expect(error["code"] == -32602)
        #expect(error["data"]?["field"] == "cursor")
        #expect(error["data"]?["expected"]?.stringValue?.contains("inbox/") == true)
    }

    @Test("limit outside 1...500 is -32602 with field, expected and got", arguments: [0, 501, -1] as [Int64])
    func badLimit(limit: Int64) async throws {
        let error = try #require(await call("feed.list", ["limit": .integer(limit)]).error)
        #expect(error["data"] == ["field": "limit", "expected": "integer 1...500", "got": .string(String(limit))])
    }

    @Test("feed.page maps page numbers to the same items as the cursor walk", arguments: FeedServiceTests.Backend.available)
    func pageNumbers(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let page = try #require(await methods.call("feed.page", ["page": 3, "pageSize": 7]).result)
            #expect(page["items"]!.arrayValue!.map { $0["id"]!.int64Value! } == Array(15...21))
            #expect(page["page"] == 3 && page["pageSize"] == 7 && page["hasMore"] == true && page["total"] == 1_000)
            let next = try #require(await methods.call("feed.list", ["limit": 2, "cursor": page["nextCursor"]!]).result)
            #expect(next["items"]!.arrayValue!.map { $0["id"]!.int64Value! } == [22, 23])
            let last = try #require(await methods.call("feed.page", ["page": 100, "pageSize": 10]).result)
            #expect(last["hasMore"] == false && last["items"]!.arrayValue!.count == 10 && last["nextCursor"] == .null)
            let beyond = try #require(await methods.call("feed.page", ["page": 101, "pageSize": 10]).result)
            #expect(beyond["items"] == [] && beyond["hasMore"] == false)
            #expect(await methods.call("feed.page", ["page": 0]).error?["data"]?["field"] == "page")
            #expect(await methods.call("feed.page", ["page": 1, "pageSize": 501]).error?["data"]?["field"] == "pageSize")
        }
    }

    @Test("feed.list and feed.page answer the one list shape, members in order", arguments: FeedServiceTests.Backend.available)
    func listShape(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let list = try #require(await methods.call("feed.list", ["limit": 2]).result)
            #expect(list.objectValue?.keys == ["items", "nextCursor", "hasMore", "total", "state"])
            let page = try #require(await methods.call("feed.page", ["page": 500, "pageSize": 2]).result)
            #expect(page.objectValue?.keys == ["items", "nextCursor", "page", "pageSize", "hasMore", "total", "state"])
            #expect(page["nextCursor"] == .null && page["hasMore"] == false)
        }
    }

    @Test("a profile builds the same JSON text its Encodable conformance writes")
    func profileBuildsItsOwnText() throws {
        // Ids with and without image, location and site, so every optional member is seen both ways.
        let profiles = (1...200).map { DemoFeed.profile(Int64($0)) }
        #expect(profiles.contains { $0.location == nil } && profiles.contains { $0.websiteUrl != nil })
        var general = JanssonEncoder()
        general.userInfo[CodingUserInfoKey(rawValue: "general")!] = true  // turns the direct path off
        func text(_ value: some Encodable, _ encoder: JanssonEncoder) throws -> String {
            let json = try encoder.encode(value)
            return withExtendedLifetime(json) { JSONWriter.string(of: json.view) }
        }
        for profile in profiles {
            #expect(try text(profile, JanssonEncoder()) == text(profile, general))
        }
        let page = ListResult(items: Array(profiles.prefix(3)), nextCursor: "c", total: 9,
                              position: PagePosition(page: 1, pageSize: 3), state: "s")
        #expect(try text(page, JanssonEncoder()) == text(page, general))
        let end = ListResult(items: [Profile](), nextCursor: nil, state: "s")
        #expect(try text(end, JanssonEncoder()) == #"{"items":[],"nextCursor":null,"hasMore":false,"state":"s"}"#)
        #expect(try text(end, general) == text(end, JanssonEncoder()))
    }

    @Test("feed.get answers the detail, and -32004 naming id for an unknown one", arguments: FeedServiceTests.Backend.available)
    func getItem(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let item = try #require(await methods.call("feed.get", ["id": 42]).result)
            #expect(item["id"] == 42)
            #expect(item["displayName"]?.stringValue == DemoFeed.profile(42).displayName)
            #expect(item.objectValue?.keys == ["id", "accountId", "displayName", "reputation", "userType", "badgeCounts",
                                               "profileImage", "location", "websiteUrl"])
            let error = try #require(await methods.call("feed.get", ["id": 5_000]).error)
            #expect(error["code"] == -32004)
            #expect(error["data"]?["field"] == "id")
            #expect(await methods.call("feed.get", ["id": "forty-two"]).error?["code"] == -32602)
        }
    }

    @Test("feed.changes with a bad state is -32010 and says to reload", arguments: FeedServiceTests.Backend.available)
    func changesBadState(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let error = try #require(await methods.call("feed.changes", ["sinceState": "bogus"]).error)
            #expect(error["code"] == -32010)
            #expect(error["message"]?.stringValue?.contains("reload") == true)
            #expect(await methods.call("feed.changes", [:]).error?["data"]?["field"] == "sinceState")
        }
    }

    @Test("the same calls give byte-identical answers", arguments: FeedServiceTests.Backend.available)
    func deterministic(backend: FeedServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let a = await methods.call("feed.page", ["page": 77, "pageSize": 20]).response.jsonText()
            let b = await methods.call("feed.page", ["page": 77, "pageSize": 20]).response.jsonText()
            #expect(a == b)
        }
    }
}
