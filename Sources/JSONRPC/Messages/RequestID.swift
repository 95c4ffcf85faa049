import CJansson
import Jansson

/// The `id` of a request: a string, an integer, a fractional number or null, as JSON-RPC allows.
///
/// The connection echoes the id exactly as received (it keeps the jansson value); this Swift form is
/// what in-flight requests are looked up by, e.g. when `$/cancelRequest` names one.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case string(String)
    case number(Double)
    case null

    /// Reads an id; `nil` when the JSON value cannot be an id (object, array, boolean).
    public init?(_ view: JSONView) {
        switch view.kind {
        case .integer: self = .integer(view.int64!)
        case .string: self = .string(view.string!)
        case .real: self = .number(view.double!)
        case .null: self = .null
        default: return nil
        }
    }

    public init?(_ value: JSONValue) {
        switch value {
        case .integer(let value): self = .integer(value)
        case .string(let value): self = .string(value)
        case .double(let value): self = .number(value)
        case .null: self = .null
        default: return nil
        }
    }

    public var jsonValue: JSONValue {
        switch self {
        case .integer(let value): .integer(value)
        case .string(let value): .string(value)
        case .number(let value): .double(value)
        case .null: .null
        }
    }

    public var description: String { jsonValue.jsonText() }
}
