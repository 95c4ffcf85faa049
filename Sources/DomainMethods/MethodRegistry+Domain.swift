import JSONRPC
import Logging
import SwitchboardCore

extension MethodRegistry {
    /// Registers a domain method: like ``MethodRegistry/register(_:_:)``, and a ``ServiceError`` the
    /// handler lets through is answered as its JSON-RPC error (see `ResponseError.init(service:field:)`).
    /// While the handler runs, ``DomainRequest/context`` is its request, so a service opened lazily
    /// can report progress to it. A ``ServiceError/serviceFailure(debugId:cause:)`` is logged with its
    /// debug id and cause, so the id a client quotes finds the log line.
    public mutating func registerDomain<M: RPCMethod>(
        _ method: M.Type,
        _ handler: @escaping @Sendable (_ params: M.Params, _ context: RequestContext) async throws -> M.Result
    ) {
        register(method) { params, context in
            do {
                return try await DomainRequest.$context.withValue(context) { try await handler(params, context) }
            } catch let error as ServiceError {
                throw ResponseError(service: error, method: M.name, logger: context.logger)
            }
        }
    }
}

/// The request a domain method is serving, for code below the method layer that has no context
/// parameter (opening the database on first use reports its progress to the requests waiting on it).
public enum DomainRequest {
    @TaskLocal public static var context: RequestContext?
}
