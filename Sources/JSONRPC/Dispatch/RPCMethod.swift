import Jansson

/// A JSON-RPC method: its name, a one-line summary, and the `Codable` shapes of its params and result.
///
/// ```swift
/// enum HostPing: RPCMethod {
///     static let name = "host.ping"
///     static let summary = "Answers \"pong\"."
///     typealias Params = EmptyParams
///     typealias Result = String
/// }
/// ```
public protocol RPCMethod: SendableMetatype {
    associatedtype Params: Decodable & Sendable = EmptyParams
    associatedtype Result: Encodable & Sendable
    /// The method name, `namespace.verb`.
    static var name: String { get }
    /// One line for `host.methods` and `rpc.discover`.
    static var summary: String { get }
    /// `result` as jansson values. Left to its defaults, which are picked when the conformance is
    /// compiled: the result's own writer when it is ``JSONTextEncodable`` or ``JanssonEncodable``, else
    /// its `Encodable` conformance. A cast at run time to find out would cost a fresh process a search
    /// of every conformance in the binary for each new type.
    static func encode(result: Result) throws -> JanssonValue
    /// True when `Params` is ``OpenParams`` (decided the same way).
    static var paramsAreOpen: Bool { get }
    /// True for a method whose work can grow with the data rather than with a page (a search that
    /// scans, a sort of everything, an import, an expansion): it runs on ``LongWorkExecutor``'s
    /// threads, so as many of them at once as cores do not hold every thread of Swift's task pool
    /// while other requests wait. False by default.
    static var runsLong: Bool { get }
}

extension RPCMethod {
    public static func encode(result: Result) throws -> JanssonValue { try ResultEncoding.encodePlain(result) }
    public static var paramsAreOpen: Bool { false }
    public static var runsLong: Bool { false }
}

extension RPCMethod where Result: JSONTextEncodable {
    public static func encode(result: Result) throws -> JanssonValue { try result.makeRawJansson() }
}

extension RPCMethod where Result: JanssonEncodable {
    public static func encode(result: Result) throws -> JanssonValue { JanssonValue(taking: try result.makeJanssonObject()) }
}

extension RPCMethod where Params: OpenParams {
    public static var paramsAreOpen: Bool { true }
}

/// A notification the host accepts: a name and params, never a reply.
public protocol RPCNotification: SendableMetatype {
    associatedtype Params: Decodable & Sendable = EmptyParams
    static var name: String { get }
    static var summary: String { get }
}

/// Params of a method that takes none: accepts an absent `params`, `{}` or `[]` (members such as
/// `_meta` are ignored).
public struct EmptyParams: Decodable, Sendable, Equatable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// The result `null`, for methods that answer nothing in particular (`shutdown`).
public struct NullResult: Encodable, Sendable, Equatable {
    public init() {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
