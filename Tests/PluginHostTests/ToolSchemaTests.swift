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

    @Test("a pattern that backtracks without end is -32602 naming the field and saying it took too long")
    func runawayPatternIsBounded() throws {
        let schema: JSONValue = ["type": "object", "properties": ["text": ["type": "string", "pattern": "(a+)+$"]]]
        let tool = try #require(PluginTool(["name": "m", "inputSchema": schema]))
        #expect(tool.checksInTask, "checked in the request's task, off the input thread")
        try tool.validate(["text": "xaaa"])
        let slow: JSONValue = ["text": .string(String(repeating: "a", count: 30) + "!")]
        let error = try #require(throws: ResponseError.self) { try tool.validate(slow) }
        #expect(error.code == .invalidParams)
        #expect(error.data?["field"] == "text", "\(error)")
        #expect(error.message.contains("pattern (a+)+$ took too long"), "\(error)")
    }

    @Test("a schema whose $refs branch at every level is cut off after its steps: -32602, not exponential time")
    func branchingSchemaIsBounded() throws {
        let schema = try JSONValue(parsing: #"""
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}},
             "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}}
            """#)
        let tool = try #require(PluginTool(["name": "b", "inputSchema": schema]))
        let error = try #require(throws: ResponseError.self) { try tool.validate(["x": 1]) }
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("too many steps"), "\(error)")
    }

    @Test("a pattern whose backtracking outgrows its memory bound is -32602 saying so")
    func patternMemoryIsBounded() throws {
        let schema: JSONValue = ["type": "object", "properties": ["text": ["type": "string", "pattern": "^(a|b)*$"]]]
        let tool = try #require(PluginTool(["name": "m", "inputSchema": schema]))
        try tool.validate(["text": "abba"])
        let error = try #require(throws: ResponseError.self) { try tool.validate(["text": .string(String(repeating: "a", count: 200_000))]) }
        #expect(error.data?["field"] == "text", "\(error)")
        #expect(error.message.contains("needs too much memory"), "\(error)")
    }

    @Test("a check in a cancelled task stops and is -32800")
    func cancelledCheck() async throws {
        let schema: JSONValue = ["type": "object", "properties": ["text": ["type": "string", "pattern": "(a+)+$"]]]
        let tool = try #require(PluginTool(["name": "m", "inputSchema": schema]))
        let slow: JSONValue = ["text": .string(String(repeating: "a", count: 30) + "!")]
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try tool.validate(slow)
        }
        let error = try #require(await #expect(throws: ResponseError.self) { try await task.value })
        #expect(error.code == .requestCancelled)
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
