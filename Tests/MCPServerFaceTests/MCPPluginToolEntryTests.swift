import Jansson
import JSONRPC
@testable import MCPServerFace
@testable import PluginHost
import SwitchboardHost
import Testing

/// A plugin's tool as `tools/list` shows it to an MCP client: the server's own description once, and
/// its `title`, `annotations` and `icons` as they came.
@Suite("MCP tools/list: a plugin tool's own entry")
struct MCPPluginToolEntryTests {
    /// A router serving one plugin tool as `p.<name>`, as ``PluginRouter`` does.
    struct OneTool: MethodRouter {
        let tool: PluginTool
        var name: String { "p." + tool.name }

        func entry(named name: String) -> MethodEntry? {
            name == self.name ? .dynamic(name: name, summary: tool.summary) { _, _ in .null } : nil
        }

        var entries: [MethodEntry] { [entry(named: name)].compactMap { $0 } }
        var namespaces: [String] { ["p"] }
        func methodDescription(named name: String) -> JSONValue? { tool.methodDescription(method: name) }
        func toolOutput(named name: String) -> ToolOutput { .passedThrough(outputSchema: tool.outputSchema) }
        func toolPresentation(named name: String) -> JSONObject { tool.presentation }
    }

    static func listed(_ entry: JSONValue) throws -> JSONValue {
        let tool = try #require(PluginTool(entry))
        var registry = MethodRegistry()
        registry.route(to: OneTool(tool: tool))
        let page = try MCPToolCatalog(dispatcher: try registry.freeze(), catalog: .embedded).page(after: nil)
        return try #require(page.tools.first { $0["name"] == .string("p." + tool.name) })
    }

    @Test("the description comes once; title, annotations and icons pass through")
    func presentation() throws {
        let listed = try Self.listed([
            "name": "d", "title": "Echo", "description": "Echoes its arguments back.\n\nAny JSON.",
            "annotations": ["readOnlyHint": true, "destructiveHint": false], "icons": [["src": "https://example.com/i.png"]],
            "inputSchema": ["type": "object"],
        ])
        #expect(listed["description"] == "Echoes its arguments back.\n\nAny JSON.")
        #expect(listed["title"] == "Echo")
        #expect(listed["annotations"] == ["readOnlyHint": true, "destructiveHint": false])
        #expect(listed["icons"] == [["src": "https://example.com/i.png"]])
    }

    @Test("a tool with a title and no description is described by its title, once; members of the wrong type are left out")
    func titleOnly() throws {
        let listed = try Self.listed(["name": "slow", "title": "Slow Tool", "annotations": "yes", "icons": 3])
        #expect(listed["description"] == "Slow Tool")
        #expect(listed["annotations"] == nil && listed["icons"] == nil)
    }
}
