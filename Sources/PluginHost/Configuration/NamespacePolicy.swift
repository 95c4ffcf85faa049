/// Which namespaces a plugin may take: a valid name, not the host's own, not another plugin's.
public enum NamespacePolicy {
    /// The host's namespaces and MCP's method prefixes, never a plugin's.
    public static let reserved: Set<String> = [
        "host", "rpc", "mail", "inbox", "feed", "chat", "catalog", "calendar", "plugins", "resources", "tools",
        "notifications", "prompts", "completion", "logging", "sampling", "elicitation", "roots", "initialize", "ping",
    ]

    /// Why `namespace` cannot be a plugin's, or nil when it can: a letter, then up to 63 letters, digits, `_` or `-`.
    public static func refusal(of namespace: String) -> String? {
        let bytes = Array(namespace.utf8)
        guard let first = bytes.first, bytes.count <= 64, isLetter(first),
              bytes.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }) else {
            return "\"\(namespace.prefix(64))\" is not a valid namespace (a letter, then letters, digits, _ or -, at most 64)"
        }
        if reserved.contains(namespace.lowercased()) { return "namespace \"\(namespace)\" belongs to the host" }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
