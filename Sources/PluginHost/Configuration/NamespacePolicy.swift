/// Which namespaces a plugin may take: a valid name, not one of the host's methods', not MCP's, not
/// another plugin's. The host's are read from what it registered, so a new domain is reserved by being
/// registered.
public struct NamespacePolicy: Sendable {
    /// MCP's client-side method prefixes (`sampling/createMessage`, `roots/list`, …), which the host does
    /// not register but a plugin may send: never a plugin's namespace either.
    public static let mcpClientPrefixes: Set<String> = ["completion", "logging", "sampling", "elicitation", "roots", "notifications"]

    /// The namespaces no plugin may take, lower-cased.
    public let reserved: Set<String>

    /// Reserves the namespace of each of the host's method names (`inbox` of `inbox.list`, `tools` of
    /// `tools/list`, `ping` itself) and MCP's client-side prefixes.
    public init(hostMethods names: [String]) {
        // A loop over an array: a generic `map` here cost a fresh process a tenth of a millisecond.
        var reserved = Self.mcpClientPrefixes
        for name in names { reserved.insert(Self.namespace(of: name).lowercased()) }
        self.reserved = reserved
    }

    /// The part of a method name a plugin's namespace would clash with: before the last `.`, else
    /// before the first `/`, else the name.
    static func namespace(of name: String) -> Substring {
        // By UTF-8 unit: a search by `Character` would break the name into grapheme clusters first.
        if let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) { return name[..<dot] }
        if let slash = name.utf8.firstIndex(of: UInt8(ascii: "/")) { return name[..<slash] }
        return name[...]
    }

    /// Why `namespace` cannot be a plugin's, or nil when it can: a letter, then up to 63 letters, digits, `_` or `-`.
    public func refusal(of namespace: String) -> String? {
        let bytes = Array(namespace.utf8)
        guard let first = bytes.first, bytes.count <= 64, Self.isLetter(first),
              bytes.allSatisfy({ Self.isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }) else {
            return "\"\(namespace.prefix(64))\" is not a valid namespace (a letter, then letters, digits, _ or -, at most 64)"
        }
        if reserved.contains(namespace.lowercased()) { return "namespace \"\(namespace)\" belongs to the host" }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
