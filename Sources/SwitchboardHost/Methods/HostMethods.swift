import JSONRPC

/// `host.methods` → every method's name and one-line summary, sorted by name.
public enum HostMethods: RPCMethod {
    public static let name = "host.methods"
    public static let summary = "Lists every method with a one-line summary."

    public struct Method: Codable, Sendable, Equatable {
        public var name: String
        public var summary: String
        /// `request` (answers) or `notification` (never answers).
        public var kind: String
    }

    public typealias Result = [Method]

    static func list(_ entries: [MethodEntry]) -> [Method] {
        entries.map { Method(name: $0.name, summary: $0.summary, kind: $0.kind.rawValue) }
    }
}
