import Jansson
import JSONRPC
@testable import PluginHost
import SchemaValidation
import Testing

@Suite("Tool schemas written elsewhere")
struct ToolSchemaTests {
    @Test("keywords, formats and patterns the validator does not know are skipped; $defs references resolve")
    func lenientValidation() throws {
        let schema = try JSONValue(parsing: #"""
            {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema", "required": ["when", "item"],
             "properties": {"when": {"type": "string", "format": "date", "x-ui": "calendar"},
                            "code": {"type": "string", "pattern": "(?<"},
                            "item": {"$ref": "#/$defs/Item"}},
             "$defs": {"Item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}}
            """#)
        let tool = try #require(PluginTool(["name": "t", "inputSchema": schema]))
        try tool.validate(["when": "2026-11-22", "code": "x", "item": ["id": 1]])
        #expect(throws: ResponseError.self) { try tool.validate(["when": "2026-11-22", "item": ["id": "one"]]) }
    }

    @Test("a tool without outputSchema is described as answering any object: its structuredContent, else {content}")
    func resultWithoutOutputSchema() throws {
        let tool = try #require(PluginTool(["name": "agenda", "inputSchema": ["type": "object"]]))
        let schema = try #require(tool.methodDescription(method: "weather.agenda")["result"]?["schema"])
        #expect(schema["type"] == "object")
        #expect(schema["required"] == nil)
        let declared = try #require(PluginTool(["name": "f", "inputSchema": ["type": "object"], "outputSchema": ["type": "object", "required": ["date"]]]))
        #expect(declared.methodDescription(method: "weather.f")["result"]?["schema"]?["required"] == ["date"])
    }

    @Test("rpc.discover's params and result stand alone: references into the tool's $defs are inlined, a recursive one is any value")
    func definitionsInlined() throws {
        // As mcp-server-time's convert_time and a pydantic model param write them.
        let tool = try #require(PluginTool(try JSONValue(parsing: #"""
            {"name": "convert",
             "inputSchema": {"type": "object", "required": ["place"],
                             "properties": {"place": {"$ref": "#/$defs/Place"}, "note": {"type": "string"}},
                             "$defs": {"Place": {"type": "object", "required": ["name"],
                                                 "properties": {"name": {"type": "string"}, "near": {"$ref": "#/$defs/Place"}}}}},
             "outputSchema": {"type": "object", "required": ["source"],
                              "properties": {"source": {"$ref": "#/$defs/TimeResult"}, "target": {"$ref": "#/definitions/Time~1Result", "title": "T"}},
                              "$defs": {"TimeResult": {"type": "object", "required": ["timezone"], "properties": {"timezone": {"type": "string"}}}},
                              "definitions": {"Time/Result": {"type": "object"}}}}
            """#)))
        let method = tool.methodDescription(method: "time.convert")
        #expect(!method.jsonText().contains("#/$defs/") && !method.jsonText().contains("#/definitions/"), "\(method.jsonText())")
        let result = try #require(method["result"]?["schema"])
        #expect(result["$defs"] == nil && result["definitions"] == nil)
        #expect(result["properties"]?["source"]?["required"] == ["timezone"])
        #expect(result["properties"]?["target"] == ["allOf": [["type": "object"], ["title": "T"]]], "a $ref beside other keywords: both hold")
        let place = try #require(method["params"]?.arrayValue?.first { $0["name"] == "place" }?["schema"])
        #expect(place["required"] == ["name"])
        #expect(place["properties"]?["near"] == [:], "the recursive reference accepts any value")
        // Checked without the tool's schema at hand, as a client of the OpenRPC document does.
        let validator = SchemaValidator(components: [:])
        #expect(validator.problems(of: ["source": ["timezone": "UTC"], "target": [:]], against: result) == [])
        #expect(validator.problems(of: ["source": ["timezone": 5]], against: result) == ["$.source.timezone: expected string, got integer 5"])
    }
}
