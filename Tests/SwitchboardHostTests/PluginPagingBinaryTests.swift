import Jansson
import Testing

/// A plugin's listings are read page by page up to a bound, never around a loop, each item once; what
/// was cut or left out is said in the log and in `plugins.list`'s `lastError`. The `pager` fixture pages
/// badly on purpose. The test waits on answers, never on time.
@Suite("Plugin listing pages (binary)", .serialized, .offCooperativePool)
struct PluginPagingBinaryTests {
    static let pagers: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/pagers"
    }()

    @Test("A looping nextCursor stops the listing, items listed twice are kept once, more than 1,000 pages are cut, and each is said")
    func badPagingIsBoundedAndSaid() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", Self.pagers, "--backend", "memory"])
        #expect(try PluginBinaryTests.call(host, 1, "pager.echo")["result"] != nil)
        let resources = try PluginBinaryTests.call(host, 2, "resources.list", #"{"limit":500}"#)["result"]?["items"]?.arrayValue ?? []
        let uris = resources.compactMap { $0["uri"]?.stringValue }.filter { $0.hasPrefix("pager://") }
        #expect(uris == ["pager://r0", "pager://r1", "pager://r2"], "\(uris.count) URIs: \(uris.prefix(5))")
        let item = try PluginBinaryTests.call(host, 3, "plugins.list")["result"]?["items"]?.arrayValue?.first
        #expect(item?["methods"] == ["pager.echo", "pager.other"])
        let lastError = item?["lastError"]?.stringValue ?? ""
        #expect(lastError.contains("resources/list: its nextCursor \"A\" came again"), "\(lastError)")
        #expect(lastError.contains("prompts/list: it has more than 1000 pages"), "\(lastError)")
        #expect(lastError.contains("tools/list: 2 items with a name listed before were left out"), "\(lastError)")
        var prompts: [JSONValue] = []
        var cursor = ""
        for id in 4... {
            let page = try PluginBinaryTests.call(host, id, "prompts.list", #"{"limit":500\#(cursor)}"#)["result"]
            prompts += page?["items"]?.arrayValue ?? []
            guard let next = page?["nextCursor"]?.stringValue else { break }
            cursor = #","cursor":\#(JSONValue.string(next).jsonText())"#
        }
        #expect(prompts.count == 1000)
        try host.waitForStderr(containing: "plugin pager: its resources/list listing: its nextCursor")
    }

    @Test("More than 10,000 items of one list are cut at 10,000, and it is said")
    func itemsAreBounded() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", Self.pagers, "--backend", "memory"])
        #expect(try PluginBinaryTests.call(host, 1, "pager.echo")["result"] != nil)
        var templates = 0
        var cursor = ""
        for id in 2... {
            let page = try PluginBinaryTests.call(host, id, "resources.templates", #"{"limit":500\#(cursor)}"#)["result"]
            templates += page?["items"]?.arrayValue?.filter { $0["owner"] == "pager" }.count ?? 0
            guard let next = page?["nextCursor"]?.stringValue else { break }
            cursor = #","cursor":\#(JSONValue.string(next).jsonText())"#
        }
        #expect(templates == 10_000)
        let item = try PluginBinaryTests.call(host, 100, "plugins.list")["result"]?["items"]?.arrayValue?.first
        #expect(item?["lastError"]?.stringValue?.contains("resources/templates/list: it lists more than 10000 items") == true, "\(item ?? .null)")
    }
}
