import Jansson

/// The part of the OpenRPC 1.3 meta-schema that `rpc.discover`'s own result schema points to
/// (`$ref` to the published meta-schema, which the tests do not download): the document, its info,
/// and each method's name, params, result and errors as content descriptors and error objects.
public enum OpenRPCMeta {
    public static let url = "https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json"

    static let contentDescriptor: JSONValue = [
        "type": "object",
        "required": ["name", "schema"],
        "properties": [
            "name": ["type": "string", "minLength": 1],
            "summary": ["type": "string"],
            "description": ["type": "string"],
            "required": ["type": "boolean"],
            "schema": ["type": ["object", "boolean"]],
            "deprecated": ["type": "boolean"],
        ],
    ]

    /// A Method Object: a name, a summary and description, params as content descriptors, and `extra`.
    static func methodObject(extra: JSONObject) -> JSONValue {
        var properties: JSONObject = [
            "name": ["type": "string", "minLength": 1],
            "summary": ["type": "string"],
            "description": ["type": "string"],
            "params": ["type": "array", "items": contentDescriptor],
        ]
        for (key, value) in extra { properties[key] = value }
        return ["type": "object", "required": ["name", "params"], "properties": .object(properties)]
    }

    public static let schema: JSONValue = [
        "type": "object",
        "required": ["openrpc", "info", "methods"],
        "properties": [
            "openrpc": ["type": "string", "pattern": #"^1\.[0-9]+\.[0-9]+$"#],
            "info": [
                "type": "object",
                "required": ["title", "version"],
                "properties": ["title": ["type": "string"], "version": ["type": "string"], "description": ["type": "string"]],
            ],
            "methods": ["type": "array", "items": methodObject(extra: [
                "paramStructure": ["enum": ["by-name", "by-position", "either"]],
                "result": contentDescriptor,
                "errors": [
                    "type": "array",
                    "items": [
                        "type": "object",
                        "required": ["code", "message"],
                        "properties": ["code": ["type": "integer"], "message": ["type": "string"], "data": true],
                    ],
                ],
                "examples": ["type": "array"],
            ])],
            // The host's extension: the notifications it sends, as Method Objects without a result.
            "x-notifications": ["type": "array", "items": methodObject(extra: [:])],
            "components": ["type": "object", "properties": ["schemas": ["type": "object"]]],
        ],
    ]
}
