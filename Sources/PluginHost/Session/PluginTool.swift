import Jansson
import JSONRPC
import SchemaValidation

/// One tool a plugin announced in `tools/list`, served as the method `namespace.name`.
///
/// A class: every call captures it (in its method entry and its relay), one reference rather than a
/// copy of each member.
final class PluginTool: Sendable {
    let name: String
    /// The name as a jansson string, made once, written into every `tools/call` (never changed, so
    /// it is shared by the threads that relay calls).
    nonisolated(unsafe) let nameValue: JanssonValue
    let description: String
    let inputSchema: JSONValue
    let outputSchema: JSONValue?
    /// `title` (a string), `annotations` (an object) and `icons` (an array) of the tool's entry, as the
    /// server sent them: `tools/list` passes them on to MCP clients.
    let presentation: JSONObject
    /// The first line of the description, for `host.methods` (made once: the router asks on every call).
    let summary: String
    /// False when the input schema accepts every object (`{"type": "object"}`), so arguments that are an
    /// object need no check.
    let checksMembers: Bool
    /// True when the input schema has a `pattern` (a search may take long, within its bound) or may
    /// branch (`$ref`, `anyOf`, `oneOf`, `allOf`: many steps, within their bound): the arguments are then
    /// checked in the request's task, not on the input thread.
    let checksInTask: Bool
    /// The input schema's validator, made once: it keeps the patterns it compiled.
    private let validator: SchemaValidator
    /// The output schema's, when the tool declared one.
    private let outputValidator: SchemaValidator?
    /// The OpenRPC params and result schema, made once: `inputSchema`'s properties and `outputSchema` with
    /// their references into the tool's `$defs` inlined, since in the document `#` is the document.
    private let describedParams: [JSONValue]
    private let describedResult: JSONValue

    /// Reads a `tools/list` entry; nil when it has no usable name.
    init?(_ value: JSONValue) {
        guard let name = value["name"]?.stringValue, !name.isEmpty, !name.contains("\0") else { return nil }
        self.name = name
        nameValue = JanssonValue.string(name)
        description = value["description"]?.stringValue ?? value["title"]?.stringValue ?? ""
        let inputSchema = value["inputSchema"]?.objectValue.map(JSONValue.object) ?? ["type": "object"]
        self.inputSchema = inputSchema
        let outputSchema = value["outputSchema"]?.objectValue.map(JSONValue.object)
        self.outputSchema = outputSchema
        var presentation: JSONObject = [:]
        if let title = value["title"], title.stringValue != nil { presentation["title"] = title }
        if let annotations = value["annotations"], annotations.objectValue != nil { presentation["annotations"] = annotations }
        if let icons = value["icons"], icons.arrayValue != nil { presentation["icons"] = icons }
        self.presentation = presentation
        let line = description.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        summary = line.isEmpty ? "Tool \(name) of a plugin." : line
        let annotations: Set<String> = ["$schema", "$comment", "title", "description", "default", "examples"]
        let keywords = Set(inputSchema.objectValue?.keys.map { $0 } ?? []).subtracting(annotations)
        checksMembers = keywords != ["type"] || inputSchema["type"] != "object"
        checksInTask = ["pattern", "$ref", "anyOf", "oneOf", "allOf"].contains { Self.hasKeyword($0, in: inputSchema) }
        validator = SchemaValidator.standalone(inputSchema)
        outputValidator = outputSchema.map(SchemaValidator.standalone)
        let properties = inputSchema["properties"]?.objectValue ?? [:]
        let required = Set(inputSchema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var input = LocalReferences(root: inputSchema)
        describedParams = properties.map { name, schema in
            ["name": .string(name), "required": .bool(required.contains(name)), "schema": input.inlined(schema)]
        }
        var output = outputSchema.map { LocalReferences(root: $0) }
        describedResult = output?.inlinedRoot() ?? [
            "type": "object",
            "description": "The tool's structuredContent when it sends one, else {content} as MCP returns it.",
        ]
    }

    /// Checks `arguments` against the input schema: the first problem as `-32602` naming the field;
    /// `-32800` when the task was cancelled meanwhile (the check stops then).
    func validate(_ arguments: JSONValue) throws(ResponseError) {
        let problems = validator.problems(of: arguments, against: inputSchema)
        if Task.isCancelled { throw ResponseError.cancelled }
        guard let first = problems.first else { return }
        throw ResponseError.invalidParams(Self.fieldError(from: first))
    }

    /// What is wrong with `structuredContent` against the `outputSchema` the tool declared (and the
    /// host advertises in `tools/list`, where MCP holds a server to it), or nil: no schema, or it matches.
    /// It names where and what the schema expects (``fieldError(from:schema:)``), never the value found:
    /// a tool's result may hold a file's text, and this goes into the log.
    func outputProblem(_ structuredContent: JSONView) -> String? {
        guard let outputValidator, let outputSchema,
              let problem = outputValidator.problems(of: JSONValue(structuredContent), against: outputSchema).first
        else { return nil }
        let error = Self.fieldError(from: problem, schema: "outputSchema")
        return "structuredContent\(error.field.isEmpty ? "" : "." + error.field): expected \(error.expected)"
    }

    /// Whether `keyword` is a member of `schema` or of an object or array within it (at most 64 deep).
    static func hasKeyword(_ keyword: String, in schema: JSONValue, depth: Int = 0) -> Bool {
        guard depth < 64 else { return true }
        switch schema {
        case .object(let members):
            return members[keyword] != nil || members.values.contains { hasKeyword(keyword, in: $0, depth: depth + 1) }
        case .array(let elements):
            return elements.contains { hasKeyword(keyword, in: $0, depth: depth + 1) }
        default:
            return false
        }
    }

    /// `$.date: expected string, got integer 5` → field `date`; a missing member is named too. Any other
    /// problem expects "a value matching the tool's `schema`" and quotes the validator's reason as `got`.
    static func fieldError(from problem: String, schema: String = "inputSchema") -> JSONFieldError {
        let parts = problem.split(separator: ": ", maxSplits: 1).map(String.init)
        var field = parts.first.map { $0 == "$" ? "" : String($0.dropFirst($0.hasPrefix("$.") ? 2 : 1)) } ?? ""
        let reason = parts.count > 1 ? parts[1] : problem
        if let missing = reason.firstMatch(of: /missing required member "(.*)"/) {
            field = field.isEmpty ? String(missing.1) : field + "." + missing.1
            return JSONFieldError(field: field, expected: "a value (required)", got: "nothing")
        }
        if let type = reason.firstMatch(of: /^expected (.*), got (.*)$/) {
            return JSONFieldError(field: field, expected: String(type.1), got: String(type.2))
        }
        if let extra = reason.firstMatch(of: /member "(.*)" is not allowed/) {
            field = field.isEmpty ? String(extra.1) : field + "." + extra.1
            return JSONFieldError(field: field, expected: "no member of this name", got: "a value")
        }
        return JSONFieldError(field: field, expected: "a value matching the tool's \(schema)", got: reason)
    }

    /// The OpenRPC method object: each `inputSchema` property a by-name param, the result
    /// `outputSchema` (both with their `$defs` inlined), else any object: a tool without one may still answer `structuredContent`,
    /// which the call returns in place of `{content}`.
    func methodDescription(method: String) -> JSONValue {
        var description: JSONObject = [
            "name": .string(method), "summary": .string(summary), "paramStructure": "by-name",
            "params": .array(describedParams), "result": ["name": "result", "schema": describedResult],
            "errors": [
                ["code": -32602, "message": "Invalid params: the field breaks the tool's inputSchema"],
                ["code": .integer(Int64(ErrorCode.pluginUnavailable.rawValue)), "message": "Plugin unavailable: crashed, timeout, protocol, failed"],
                ["code": .integer(Int64(ErrorCode.toolError.rawValue)), "message": "Tool error: {plugin, reason: toolError, content}"],
            ],
        ]
        if !description.isEmpty, !self.description.isEmpty { description["description"] = .string(self.description) }
        return .object(description)
    }
}
