import Jansson
import SwitchboardHost

/// What the 2026-07-28 revision adds to results, for a request whose `_meta` names that revision:
/// `resultType: "complete"` on every result, and the caching directives (`ttlMs: 0`, `cacheScope:
/// "private"`: never cached, nothing shared) on lists and reads. Other revisions' results stay as they are.
enum MCPResultStamp {
    static let versionKey = "io.modelcontextprotocol/protocolVersion"

    static func stamped(_ result: JSONValue, meta: JSONValue?, cacheable: Bool) -> JSONValue {
        guard meta?[versionKey]?.stringValue == MCPVersion.stateless, case .object(var object) = result else { return result }
        object["resultType"] = "complete"
        if cacheable {
            object["ttlMs"] = 0
            object["cacheScope"] = "private"
        }
        return .object(object)
    }
}
