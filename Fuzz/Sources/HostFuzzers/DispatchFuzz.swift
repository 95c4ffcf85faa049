import FuzzSupport
import Jansson
import JSONRPC

/// A request to any of the host's methods with fuzzed params: the input is `method NUL params`, the
/// params as JSON text; a name that is no method picks one by its hash (so mutated names still reach
/// methods, and the corpus stays valid when methods are added). Reaches every method's params
/// decoding and the services behind it.
///
/// Properties: it never traps or hangs; a valid request is answered exactly once, with a result or a
/// client error, never an internal error (``OutputCheck``).
enum DispatchFuzz: FuzzTarget {
    static let name = "dispatch"
    static let summary = "one request to any host method (in-memory services) with fuzzed params"
    static let maxLength = 2048

    /// The methods tried: every one a client can call, but `host.sleep` (it waits as long as asked).
    static let methods: [String] = HostWorld.dispatcher().entries.map(\.name).filter { $0 != "host.sleep" }.sorted()

    static func run(_ input: [UInt8]) {
        let parts = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(decoding: parts[0], as: UTF8.self)
        let method = methods.contains(name) ? name : methods[Int(parts[0].reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) } % UInt32(methods.count))]
        HostWorld.call(method, params: parts.count > 1 ? Array(parts[1]) : [])
    }
}
