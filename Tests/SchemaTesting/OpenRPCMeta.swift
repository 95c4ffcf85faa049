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
            "methods": [
                "type": "array",
                "items": [
                    "type": "object",
                    "required": ["name", "params"],
                    "properties": [
                        "name": ["type": "string", "minLength": 1],
                        "summary": ["type": "string"],
                        "description": ["type": "string"],
                        "paramStructure": ["enum": ["by-name", "by-position", "either"]],
                        "params": ["type": "array", "items": contentDescriptor],
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
                    ],
                ],
            ],
            "x-notifications": [
                "type": "array",
                "items": [
                    "type": "object",
                    "required": ["name", "params"],
                    "properties": [
                        "name": ["type": "string", "minLength": 1],
                        "summary": ["type": "string"],
                        "description": ["type": "string"],
                        "params": ["type": "array", "items": contentDescriptor],
                    ],
                ],
            ],
            "components": ["type": "object", "properties": ["schemas": ["type": "object"]]],
        ],
    ]
}
