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
    /// The params schema of each notification the host sends (`x-notifications`), by method name.
    public let notificationSchemas: [String: JSONValue]
    /// A notification `x-notifications` does not list passes (a test's own); listed ones are still checked.
    public let allowsUnlistedNotifications: Bool
    public let validator: SchemaValidator

    public struct DocumentError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the document, first checking it against the subset of the OpenRPC meta-schema in ``OpenRPCMeta``.
    public init(openRPC document: JSONValue, allowingUnlistedNotifications: Bool = false) throws {
        allowsUnlistedNotifications = allowingUnlistedNotifications
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
        var notifications: [String: JSONValue] = [:]
        for notification in document["x-notifications"]?.arrayValue ?? [] {
            guard let name = notification["name"]?.stringValue else { continue }
            notifications[name] = Self.paramsSchema(notification["params"]?.arrayValue ?? [])
        }
        notificationSchemas = notifications
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

    /// Every way a notification the host sent breaks its `x-notifications` entry; one the document does
    /// not list is a problem too (every push is documented).
    public func problems(inNotification message: JSONValue) -> [String] {
        guard let method = message["method"]?.stringValue else { return ["notification without a method"] }
        guard let schema = notificationSchemas[method] else {
            return allowsUnlistedNotifications ? [] : ["\(method): a notification rpc.discover does not list"]
        }
        // JSON-RPC lets a notification omit params: then it has no members (a required one is still missed).
        return validator.problems(of: message["params"] ?? [:], against: schema, at: "\(method) params")
    }

    /// An object schema for by-name params from OpenRPC content descriptors.
    static func paramsSchema(_ descriptors: [JSONValue]) -> JSONValue {
        var properties = JSONObject()
        var required: [JSONValue] = []
        for descriptor in descriptors {
            guard let name = descriptor["name"]?.stringValue else { continue }
            properties[name] = descriptor["schema"] ?? true
            if descriptor["required"]?.boolValue == true { required.append(.string(name)) }
        }
        return ["type": "object", "properties": .object(properties), "required": .array(required), "additionalProperties": false]
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
