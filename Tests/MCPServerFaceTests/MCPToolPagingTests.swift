import Jansson
import JSONRPC
@testable import MCPServerFace
import SwitchboardHost
import Synchronization
import Testing

/// `tools/list` paging: every tool on one page in any real setup, and a cursor that brings a tool
/// which arrived later and sorts before it instead of skipping it (issue 20, points 1 and 2).
@Suite("MCP tools/list paging")
struct MCPToolPagingTests {
    /// Tools as a plugin router serves them: a set that grows, each name with its arrival number.
    final class GrowingTools: MethodRouter, Sendable {
        private let state = Mutex<(names: [String: UInt64], latest: UInt64)>(([:], 0))

        init(_ names: [String]) { add(names, arriving: false) }

        func add(_ names: [String], arriving: Bool = true) {
            state.withLock { state in
                if arriving { state.latest += 1 }
                for name in names { state.names[name] = arriving ? state.latest : 0 }
            }
        }

        func entry(named name: String) -> MethodEntry? {
            state.withLock { $0.names[name] } == nil ? nil : .dynamic(name: name, summary: "a tool") { _, _ in .null }
        }

        var entries: [MethodEntry] { state.withLock { Array($0.names.keys) }.sorted().compactMap(entry(named:)) }
        var namespaces: [String] { ["p"] }
        func methodDescription(named name: String) -> JSONValue? { nil }
        func arrival(of name: String) -> UInt64 { state.withLock { $0.names[name] ?? 0 } }
        var latestArrival: UInt64 { state.withLock { $0.latest } }
    }

    static func catalog(_ router: GrowingTools, pageLimit: Int = MCPToolCatalog.pageSize) throws -> MCPToolCatalog {
        var registry = MethodRegistry()
        registry.route(to: router)
        return MCPToolCatalog(dispatcher: try registry.freeze(), catalog: .embedded, pageLimit: pageLimit)
    }

    static func names(_ tools: [JSONValue]) -> [String] { tools.compactMap { $0["name"]?.stringValue } }

    @Test("500 tools come on one page, with no cursor")
    func onePage() throws {
        let names = (0..<500).map { "p.t\(1_000 + $0)" }
        let (tools, next) = try Self.catalog(GrowingTools(names)).page(after: nil)
        #expect(Self.names(tools) == names && next == nil)
    }

    @Test("a tool that arrives between pages and sorts before the cursor comes on the next page, once; one sorting after it comes in order")
    func lateArrivalsAreNotSkipped() throws {
        let router = GrowingTools(["p.b", "p.d", "p.f", "p.h"])
        let catalog = try Self.catalog(router, pageLimit: 2)
        let first = try catalog.page(after: nil)
        #expect(Self.names(first.tools) == ["p.b", "p.d"] && first.nextCursor != nil)
        router.add(["p.a", "p.e"])
        let second = try catalog.page(after: first.nextCursor ?? "")
        #expect(Self.names(second.tools) == ["p.a", "p.e"] && second.nextCursor != nil)
        let third = try catalog.page(after: second.nextCursor ?? "")
        #expect(Self.names(third.tools) == ["p.f", "p.h"] && third.nextCursor == nil)
    }

    @Test("more late tools than a page holds (a forged seen of 0): the page starts again from the first tool, no bigger than a page")
    func lateToolsOverflowingAPage() throws {
        let router = GrowingTools([])
        router.add((0..<5).map { "p.t\($0)" })
        let catalog = try Self.catalog(router, pageLimit: 2)
        let restarted = try catalog.page(after: MCPCursor(after: "p.t4", seen: 0).text)
        #expect(Self.names(restarted.tools) == ["p.t0", "p.t1"], "\(restarted)")
        var names = Self.names(restarted.tools)
        var cursor = restarted.nextCursor
        while let next = cursor {
            let page = try catalog.page(after: next)
            #expect(page.tools.count <= 2)
            names += Self.names(page.tools)
            cursor = page.nextCursor
        }
        #expect(names == (0..<5).map { "p.t\($0)" })
    }

    @Test("cursors that are not ours, edited or cut short are refused naming cursor",
          arguments: ["elsewhere", "after:", "after:7", "after:x:p.b", "after:1:", "after:1:zzz", "after:99:p.a", "",
                      String(MCPCursor(after: "p.a", seen: 0).text.dropLast()), MCPCursor(after: "p.a", seen: 0).text + "A"])
    func foreignCursors(cursor: String) throws {
        #expect(throws: JSONFieldError.self) { try Self.catalog(GrowingTools(["p.a"])).page(after: cursor) }
    }

    @Test("tools with long names (600 bytes), or holding U+001F, page to the end: every cursor handed out is taken back")
    func longNames() throws {
        let names = (0..<7).map { "p." + String(repeating: "x", count: 600) + "\u{1F}\u{1B}\($0)" }
        let catalog = try Self.catalog(GrowingTools(names), pageLimit: 2)
        var listed: [String] = []
        var cursor: String?
        repeat {
            let page = try catalog.page(after: cursor)
            listed += Self.names(page.tools)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(listed == names)
    }

    @Test("prompts/list: a cursor handed out for a long name is taken back; an edited one is refused")
    func promptCursors() throws {
        let prompts = (0..<1_005).map { JSONValue.object(["name": .string("p." + String(1_000 + $0) + String(repeating: "y", count: 600))]) }
        let first = try MCPPromptsList.page(prompts, after: nil)
        let cursor = try #require(first["nextCursor"]?.stringValue)
        let second = try MCPPromptsList.page(prompts, after: cursor)
        #expect(second["prompts"]?.arrayValue?.count == 5 && second["nextCursor"] == nil)
        #expect(throws: JSONFieldError.self) { try MCPPromptsList.page(prompts, after: "after:x") }
        #expect(throws: JSONFieldError.self) { try MCPPromptsList.page(prompts, after: String(cursor.dropLast(2))) }
    }
}
