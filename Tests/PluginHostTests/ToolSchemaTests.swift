import Jansson
import JSONRPC
@testable import PluginHost
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
}
