import Jansson

/// What an MCP server says of itself in its `initialize` answer (`serverInfo`): shown by `plugins.list`,
/// where an `mcpServers` entry has no version of its own. Each member is cut to ``maximum`` characters.
public struct PluginServerInfo: Encodable, Sendable, Equatable {
    public var name: String
    public var title: String?
    public var version: String

    static let maximum = 200

    /// `serverInfo`'s members; nil when it is missing or has no string `name` and `version` (MCP requires both).
    init?(_ value: JSONValue?) {
        guard let value, let name = value["name"]?.stringValue, let version = value["version"]?.stringValue else { return nil }
        self.name = Self.cut(name)
        self.version = Self.cut(version)
        title = value["title"]?.stringValue.map(Self.cut)
    }

    private static func cut(_ text: String) -> String { String(text.unicodeScalars.prefix(maximum)) }
}
