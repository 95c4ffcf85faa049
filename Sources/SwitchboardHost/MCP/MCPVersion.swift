import Jansson

/// The MCP revisions the server face speaks, and how `initialize` tells an MCP client from an LSP or
/// plain JSON-RPC one.
public enum MCPVersion {
    /// The revision the server face implements.
    public static let latest = "2025-11-25"
    /// Earlier revisions a client may ask for; the answer names the one it asked for, whose messages
    /// are a subset of the latest's for everything this server offers.
    public static let supported = [latest, "2025-06-18", "2025-03-26", "2024-11-05"]
    /// The stateless revision: no handshake, `server/discover`, the version in each request's `_meta`,
    /// `subscriptions/listen` for updates.
    public static let stateless = "2026-07-28"

    /// The revision to answer a client that asked for `requested`: that one when supported, else the
    /// latest (the client then decides whether it can go on, as the specification says).
    public static func negotiate(_ requested: String) -> String {
        supported.contains(requested) ? requested : latest
    }

    /// True for an MCP `initialize`: a `protocolVersion` string with `clientInfo` or `capabilities`
    /// objects, as every MCP client sends. An LSP `initialize` has no `protocolVersion`.
    static func isMCPHandshake(_ params: Initialize.Params) -> Bool {
        guard params.protocolVersion != nil else { return false }
        return params.clientInfo?.objectValue != nil || params.capabilities?.objectValue != nil
    }

    /// With a `protocolVersion`, a `clientInfo` or `capabilities` that is no object is `-32602` naming
    /// it: the client means MCP's handshake and got it wrong (taken as the host's own it would have
    /// been answered as a JSON-RPC client). `null` is taken as absent.
    static func checkHandshake(_ params: Initialize.Params) throws(JSONFieldError) {
        guard params.protocolVersion != nil else { return }
        for (field, value) in [("clientInfo", params.clientInfo), ("capabilities", params.capabilities)] {
            if let value, value != .null, value.objectValue == nil {
                throw JSONFieldError.outOfRange(field: field, expected: "an object", got: value)
            }
        }
    }
}
