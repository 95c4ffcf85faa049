import Jansson
import JSONRPC
@testable import MCPServerFace
@testable import SwitchboardHost
import Testing

/// The pieces of the MCP server face that need no process: tool schemas built from the embedded
/// OpenRPC documents, and the host's notifications in MCP's words.
@Suite("MCP tool schemas and notification wording")
struct MCPToolSchemaTests {
    static let catalog = SchemaCatalog.embedded
    static let schemas = MCPToolSchema(components: catalog.components)
    static let dialect = NotificationDialect.mcp(listens: MCPListens())

    @Test("every method's inputSchema and outputSchema stand alone: each $ref resolves in its own $defs")
    func schemasStandAlone() {
        #expect(Self.catalog.methods.count > 30)
        for (name, method) in Self.catalog.methods {
            let input = Self.schemas.input(of: method)
            #expect(input["type"] == "object", "\(name)")
            #expect(input["properties"]?["_meta"] == nil, "\(name): _meta travels beside the arguments")
            for schema in [input, Self.schemas.output(of: method)].compactMap({ $0 }) {
                let defs = schema["$defs"]?.objectValue ?? [:]
                for reference in Self.references(in: schema) {
                    #expect(reference.hasPrefix("#/$defs/"), "\(name): \(reference)")
                    #expect(defs[String(reference.dropFirst("#/$defs/".count))] != nil, "\(name): \(reference) is not carried")
                }
            }
        }
    }

    @Test("inbox.list: optional params, no others; its page result is the outputSchema")
    func inboxList() throws {
        let method = try #require(Self.catalog.methods["inbox.list"])
        let input = Self.schemas.input(of: method)
        #expect(input["required"] == nil && input["additionalProperties"] == false)
        #expect(input["properties"]?["cursor"] == ["$ref": "#/$defs/Cursor"])
        let output = try #require(Self.schemas.output(of: method))
        #expect(output["required"] == ["items", "nextCursor", "hasMore", "state"])
        #expect(output["$defs"]?["MailConversation"] != nil)
        #expect(Self.schemas.output(of: try #require(Self.catalog.methods["host.ping"])) == nil, "a string result has no outputSchema")
    }

    /// Progress values as methods report them, and the params MCP gets (nil: not sent).
    static let progressCases: [(JSONValue, JSONValue?)] = [
        (["step": 2, "of": 5], ["progressToken": "t", "progress": 2, "total": 5]),
        (["stage": "mail", "done": 10, "total": 20], ["progressToken": "t", "progress": 10, "total": 20, "message": "mail"]),
        (["progress": 0.5], ["progressToken": "t", "progress": 0.5]),
        (["stage": "mail"], nil),
    ]

    @Test("progress values become MCP's progress, total and message; one without a number is dropped", arguments: progressCases)
    func progress(value: JSONValue, expected: JSONValue?) {
        let worded = Self.dialect.rewrite("$/progress", ["token": "t", "value": value])
        #expect(worded?.method == (expected == nil ? nil : "notifications/progress"))
        #expect(worded?.params == expected)
    }

    @Test("resources.updated keeps only its uri; list changes become MCP's; other notifications pass unchanged")
    func wording() {
        let updated = Self.dialect.rewrite("resources.updated", ["subscriptionId": "resources-sub-1", "uri": "mail://inbox", "state": "3"])
        #expect(updated?.method == "notifications/resources/updated" && updated?.params == ["uri": "mail://inbox"])
        #expect(Self.dialect.rewrite("host.methodsChanged", [:])?.method == "notifications/tools/list_changed")
        #expect(Self.dialect.rewrite("resources.listChanged", nil)?.method == "notifications/resources/list_changed")
        #expect(Self.dialect.rewrite("chat.message", ["text": "hi"])?.params == ["text": "hi"])
    }

    static func references(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            object.flatMap { key, member in key == "$ref" ? [member.stringValue ?? ""] : references(in: member) }
        case .array(let items):
            items.flatMap(references(in:))
        default:
            []
        }
    }
}
