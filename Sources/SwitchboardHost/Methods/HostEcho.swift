import Jansson
import JSONRPC

/// `host.echo` → its params unchanged (object, array, or null when absent), so clients can check
/// their own encoding: member order, 64-bit integers, `\u0000`, non-BMP characters.
public enum HostEcho: RPCMethod {
    public static let name = "host.echo"
    public static let summary = "Answers its params unchanged."
    public typealias Params = JSONValue
    public typealias Result = JSONValue
}
