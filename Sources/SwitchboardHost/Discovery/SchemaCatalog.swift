import Jansson

/// The method schemas under `Schemas/`, embedded at build time: one OpenRPC Method Object per file
/// (`Schemas/methods/host.ping.json`), the notifications the host sends (`Schemas/notifications/`,
/// same shape without a result; `$/` in a name is written `$-` in the file name), and shared schemas
/// under `Schemas/components/`.
public struct SchemaCatalog: Sendable {
    /// OpenRPC method objects by method name.
    public let methods: [String: JSONValue]
    /// The notifications the host sends, by method name.
    public let notifications: [String: JSONValue]
    /// Shared schemas by name, for `#/components/schemas/NAME` references.
    public let components: JSONObject
    /// Files that are not valid JSON or lack a name; reported by tests, never fatal at run time.
    public let problems: [String]

    /// The catalog of the embedded files, parsed once.
    public static let embedded = SchemaCatalog(files: embeddedSchemaFiles)

    public init(files: [(path: String, text: String)]) {
        var methods: [String: JSONValue] = [:]
        var notifications: [String: JSONValue] = [:]
        var components = JSONObject()
        var problems: [String] = []
        for file in files {
            guard let value = try? JSONValue(parsing: file.text) else {
                problems.append("\(file.path): not valid JSON")
                continue
            }
            if file.path.hasPrefix("components/") {
                let name = String(file.path.dropFirst("components/".count).dropLast(".json".count))
                components[name] = value
            } else if let name = value["name"]?.stringValue {
                if file.path.hasPrefix("notifications/") { notifications[name] = value } else { methods[name] = value }
            } else {
                problems.append("\(file.path): a method schema needs a \"name\"")
            }
        }
        self.methods = methods
        self.notifications = notifications
        self.components = components
        self.problems = problems
    }
}
