import Jansson
import JSONRPC

/// A client's arguments for a tool: checked against the tool's `inputSchema` (on the input thread,
/// unless the schema has patterns or branches: ``PluginTool/checksInTask``), and kept as the jansson
/// value they were parsed into, to be passed on to the plugin unchanged.
///
/// - Important: the value is never changed once made, and jansson counts references atomically, so it
///   may be passed on and released on another thread (the one the request gets its slot on).
struct ToolArguments: @unchecked Sendable {
    private let value: JanssonValue

    /// The params of a request for `tool`: an object (none is `{}`), without MCP's `_meta`, that
    /// passes the tool's `inputSchema` (checked later, with ``check(against:)``, when `checking` is
    /// false); else `-32602` naming the field.
    init(_ params: JSONView?, tool: PluginTool, checking: Bool = true) throws {
        guard let params else {
            value = JanssonValue.object()
            if checking { try tool.validate([:]) }
            return
        }
        guard params.kind == .object else {
            throw ResponseError.invalidParams(JSONFieldError(field: "", expected: "object (named params)",
                                                             got: JSONFieldError.excerpt(JSONValue(params).jsonText())))
        }
        if params["_meta"] != nil {
            // Rare: a copy without it.
            let stripped = JSONValue(params).withoutMeta
            if checking { try tool.validate(stripped) }
            value = stripped.makeJansson()
        } else {
            if checking, tool.checksMembers { try tool.validate(JSONValue(params)) }
            value = JanssonValue(retaining: params.pointer)
        }
    }

    /// The same from a Swift value (a call that had to wait for the plugin to start).
    init(_ arguments: JSONValue?, tool: PluginTool) throws {
        let arguments = arguments ?? [:]
        guard arguments.objectValue != nil else {
            throw ResponseError.invalidParams(JSONFieldError(field: "", expected: "object (named params)",
                                                             got: JSONFieldError.excerpt(arguments.jsonText())))
        }
        try tool.validate(arguments.withoutMeta)
        value = arguments.withoutMeta.makeJansson()
    }

    /// Checks them against `tool`'s `inputSchema`, for arguments made without `checking`.
    func check(against tool: PluginTool) throws(ResponseError) { try tool.validate(JSONValue(value.view)) }

    /// Runs `body` with a view of them (valid during the call).
    func withView<R>(_ body: (JSONView) -> R) -> R { withExtendedLifetime(value) { body(value.view) } }
}
