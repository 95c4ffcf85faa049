/// A JSON-RPC error code. Never write a bare integer on the wire path: use these members.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Invalid JSON was received.
    public static let parseError = ErrorCode(rawValue: -32700)
    /// The JSON sent is not a valid Request object.
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    /// The method does not exist or is not available.
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    /// Invalid method parameters.
    public static let invalidParams = ErrorCode(rawValue: -32602)
    /// An error inside the server.
    public static let internalError = ErrorCode(rawValue: -32603)
    /// The client cancelled the request (LSP `RequestCancelled`).
    public static let requestCancelled = ErrorCode(rawValue: -32800)

    public var description: String { String(rawValue) }
}
