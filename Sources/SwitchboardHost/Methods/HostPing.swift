import JSONRPC

/// `host.ping` → `"pong"`: the cheapest round trip, for liveness checks and benchmarks.
public enum HostPing: RPCMethod {
    public static let name = "host.ping"
    public static let summary = "Answers \"pong\"."
    public typealias Result = String
}
