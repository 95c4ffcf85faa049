import Jansson
import SchemaValidation

/// What every answer must look like, read from an OpenRPC document (the host's `rpc.discover` answer):
/// a success's `result` matches the result schema of the method it answers, an error matches the
/// JSON-RPC error object, and both have the response envelope.
///
/// ```swift
/// let schemas = try AnswerSchemas(openRPC: discoverResult)
/// let problems = schemas.problems(in: response, answering: "inbox.list")   // [] when it matches
/// ```
public struct AnswerSchemas: Sendable {
    /// Each method's result schema, by method name.
    public let resultSchemas: [String: JSONValue]
    /// Methods the document lists (requests and notifications).
    public let methods: Set<String>
    public let validator: SchemaValidator

    public struct DocumentError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the document, first checking it against the subset of the OpenRPC meta-schema in ``OpenRPCMeta``.
    public init(openRPC document: JSONValue) throws {
        let metaProblems = SchemaValidator(components: [:]).problems(of: document, against: OpenRPCMeta.schema, at: "rpc.discover")
        guard metaProblems.isEmpty else {
            throw DocumentError(description: "not an OpenRPC document: " + metaProblems.joined(separator: "; "))
        }
        var results: [String: JSONValue] = [:]
        var names: Set<String> = []
        for method in document["methods"]?.arrayValue ?? [] {
            guard let name = method["name"]?.stringValue else { continue }
            names.insert(name)
            if let schema = method["result"]?["schema"] { results[name] = schema }
        }
        resultSchemas = results
        methods = names
        validator = SchemaValidator(components: document["components"]?["schemas"]?.objectValue ?? [:],
                                    external: [OpenRPCMeta.url: OpenRPCMeta.schema])
    }

    /// Every way `response` breaks the envelope, its method's result schema, or the error shape.
    /// `method` nil: the method is unknown (e.g. an invalid request), so only the envelope and the
    /// error shape are checked. A success of a method the document does not list (a test's own) is
    /// checked for its envelope only.
    public func problems(in response: JSONValue, answering method: String?) -> [String] {
        let label = method ?? "?"
        var found = validator.problems(of: response, against: Self.envelope, at: "response(\(label))")
        if let error = response["error"] {
            found += validator.problems(of: error, against: Self.errorObject, at: "\(label) error")
        } else if let result = response["result"], let method, let schema = resultSchemas[method] {
            found += validator.problems(of: result, against: schema, at: "\(method) result")
        }
        return found
    }

    /// The JSON-RPC 2.0 response envelope: `jsonrpc`, `id`, and exactly one of `result` and `error`.
    public static let envelope: JSONValue = [
        "type": "object",
        "required": ["jsonrpc", "id"],
        "properties": [
            "jsonrpc": ["const": "2.0"],
            "id": ["type": ["string", "integer", "number", "null"]],
            "result": true,
            "error": true,
        ],
        "additionalProperties": false,
        "oneOf": [["required": ["result"]], ["required": ["error"]]],
    ]

    /// The JSON-RPC 2.0 error object: an integer `code`, a non-empty `message`, optional `data`, nothing else.
    public static let errorObject: JSONValue = [
        "type": "object",
        "required": ["code", "message"],
        "properties": [
            "code": ["type": "integer"],
            "message": ["type": "string", "minLength": 1],
            "data": true,
        ],
        "additionalProperties": false,
    ]
}
