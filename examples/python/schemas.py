"""What every message from the host must look like, read from its `rpc.discover` answer (OpenRPC 1.3)."""
import jsonschema
from referencing import Registry
from referencing.jsonschema import DRAFT202012

ENVELOPE = {
    "type": "object",
    "required": ["jsonrpc", "id"],
    "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer", "null"]},
                   "result": True, "error": True},
    "additionalProperties": False,
    "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
}
ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "integer"}, "message": {"type": "string", "minLength": 1}, "data": True},
    "additionalProperties": False,
}
NOTIFICATION = {
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {"jsonrpc": {"const": "2.0"}, "method": {"type": "string"}, "params": True},
    "additionalProperties": False,
}

# rpc.discover's result names the OpenRPC meta-schema by its URL; offline, this subset stands in for it
# (as Tests/SchemaTesting/OpenRPCMeta.swift does for the Swift suites).
OPENRPC_URL = "https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json"
METHOD_OBJECT = {
    "type": "object",
    "required": ["name", "params"],
    "properties": {"name": {"type": "string", "minLength": 1}, "summary": {"type": "string"},
                   "params": {"type": "array", "items": {"type": "object", "required": ["name", "schema"]}},
                   "result": {"type": "object", "required": ["name", "schema"]}},
}
OPENRPC_SUBSET = {
    "type": "object",
    "required": ["openrpc", "info", "methods"],
    "properties": {
        "openrpc": {"type": "string", "pattern": "^1\\.3\\.[0-9]+$"},
        "info": {"type": "object", "required": ["title", "version"]},
        "methods": {"type": "array", "items": METHOD_OBJECT},
        "x-notifications": {"type": "array", "items": METHOD_OBJECT},
        "components": {"type": "object", "properties": {"schemas": {"type": "object"}}},
    },
}
REGISTRY = Registry().with_resource(OPENRPC_URL, DRAFT202012.create_resource(OPENRPC_SUBSET))


def params_schema(descriptors):
    """An object schema for by-name params from OpenRPC content descriptors."""
    return {
        "type": "object",
        "properties": {d["name"]: d.get("schema", True) for d in descriptors},
        "required": [d["name"] for d in descriptors if d.get("required")],
        "additionalProperties": False,
    }


class Schemas:
    """Result schemas by method, notification params schemas by method, all resolving `#/components/...`."""

    def __init__(self, document):
        self.components = document["components"]
        self.results = {m["name"]: m["result"]["schema"] for m in document["methods"] if "result" in m}
        self.notifications = {n["name"]: params_schema(n.get("params", [])) for n in document["x-notifications"]}

    def _errors(self, instance, schema, label):
        # Each schema sits in a root holding the components, so `#/components/schemas/X` resolves.
        root = {"allOf": [schema], "components": self.components}
        validator = jsonschema.Draft202012Validator(root, registry=REGISTRY, format_checker=jsonschema.FormatChecker())
        return [f"{label}: {error.json_path}: {error.message}" for error in validator.iter_errors(instance)]

    def problems(self, message, answering=None):
        """Every way `message` (a response to `answering`, or a notification) breaks its schema."""
        if "method" in message:
            found = self._errors(message, NOTIFICATION, "notification")
            schema = self.notifications.get(message["method"])
            if schema is None:
                return found + [f"{message['method']}: a notification rpc.discover does not list"]
            return found + self._errors(message.get("params"), schema, f"{message['method']} params")
        found = self._errors(message, ENVELOPE, "response")
        if "error" in message:
            return found + self._errors(message["error"], ERROR, f"{answering} error")
        if answering in self.results:
            return found + self._errors(message["result"], self.results[answering], f"{answering} result")
        return found + [f"an answer to {answering!r}, which rpc.discover does not list"]
