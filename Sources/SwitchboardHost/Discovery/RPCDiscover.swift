import Jansson
import JSONRPC

/// `rpc.discover` → an OpenRPC 1.3 document of every registered method, from the schema files.
///
/// OpenRPC has no object for notifications a server sends, so they are listed under the extension
/// member `x-notifications`: Method Objects without a `result`, sorted by name. A method whose answer
/// starts them names them in its own `x-notifications` array.
public enum RPCDiscover: RPCMethod {
    public static let name = "rpc.discover"
    public static let summary = "Describes every method as an OpenRPC 1.3 document."
    public typealias Result = JSONValue

    /// Builds the document of `entries` (by default the dispatcher's, as they are now). A method with no schema file still appears, with its summary and an open
    /// schema, so a plugin's methods are never hidden.
    public static func document(for dispatcher: Dispatcher, entries: [MethodEntry]? = nil, catalog: SchemaCatalog) -> JSONValue {
        let methods: [JSONValue] = (entries ?? dispatcher.entries).map { entry in
            if var method = catalog.methods[entry.name]?.objectValue {
                if method["summary"] == nil { method["summary"] = .string(entry.summary) }
                return .object(method)
            }
            if let described = dispatcher.router?.methodDescription(named: entry.name) { return described }
            var method: JSONObject = ["name": .string(entry.name), "summary": .string(entry.summary), "params": []]
            if entry.kind == .request { method["result"] = ["name": "result", "schema": [:]] }
            return .object(method)
        }
        return [
            "openrpc": "1.3.2",
            "info": [
                "title": .string(HostInfo.name),
                "version": .string(HostInfo.version),
                "description": "A scriptable JSON-RPC 2.0 host over stdio.",
            ],
            "methods": .array(methods),
            "x-notifications": .array(catalog.notifications.keys.sorted().compactMap { catalog.notifications[$0] }),
            "components": ["schemas": .object(catalog.components)],
        ]
    }
}
