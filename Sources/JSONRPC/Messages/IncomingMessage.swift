#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson
import Jansson

/// One JSON-RPC message from the peer, classified once by which members it has.
///
/// Views point into the parsed document and are valid while it is alive.
enum IncomingMessage {
    case request(id: RequestID, idView: JSONView, method: String, params: JSONView?)
    case notification(method: String, params: JSONView?)
    case response(id: RequestID, result: JSONView?, error: JSONView?)
    /// A response to `id` holding what jansson cannot hold (``JSONScanner``): `reason` says what and where.
    case unreadableResponse(id: RequestID, reason: String)
    /// Not a valid message. `idView` is the id when it could be read, so the error can carry it.
    case invalid(idView: JSONView?, reason: String)
    /// Valid JSON that jansson cannot hold (see ``JSONScanner``): answered with `error` when
    /// `answered` (not for a notification whose params were the problem).
    case unholdable(idView: JSONView?, error: ResponseError, answered: Bool)

    /// Classifies one element: a whole message, or one member of a batch.
    init(_ message: JSONView) {
        guard message.kind == .object else {
            self = .invalid(idView: nil, reason: "expected a request object, got \(message.kind.description) \(message.preview(limit: 40))")
            return
        }
        let members = EnvelopeMembers(message)
        let idView = members.id
        var id: RequestID?
        if let idView {
            guard let parsed = RequestID(idView) else {
                self = .invalid(idView: nil, reason: "\"id\" must be a string, a number or null, got \(idView.preview(limit: 40))")
                return
            }
            id = parsed
        }
        guard let version = members.jsonrpc else {
            self = .invalid(idView: idView, reason: "missing member \"jsonrpc\": \"2.0\"")
            return
        }
        guard version.string == "2.0" else {
            self = .invalid(idView: idView, reason: "\"jsonrpc\" must be \"2.0\", got \(version.preview(limit: 40))")
            return
        }
        let result = members.result
        let error = members.error
        switch (members.method, result, error) {
        case (let methodView?, nil, nil):
            guard let method = methodView.string else {
                self = .invalid(idView: idView, reason: "\"method\" must be a string, got \(methodView.preview(limit: 40))")
                return
            }
            let params = members.params
            if let params, params.kind != .object, params.kind != .array {
                self = .invalid(idView: idView, reason: "\"params\" must be an object or an array, got \(params.preview(limit: 40))")
                return
            }
            if let id, let idView {
                self = .request(id: id, idView: idView, method: method, params: params)
            } else {
                self = .notification(method: method, params: params)
            }
        case (nil, _, _) where (result == nil) != (error == nil):
            guard let id else {
                self = .invalid(idView: nil, reason: "a response must have an \"id\"")
                return
            }
            self = .response(id: id, result: result, error: error)
        case (nil, nil, nil):
            self = .invalid(idView: idView, reason: "missing member \"method\"")
        default:
            self = .invalid(idView: idView, reason: "a message has either \"method\", \"result\" or \"error\", not several")
        }
    }
}

extension IncomingMessage {
    /// The same message answering with `idView` instead (the exact text of a real id).
    func replacingIDView(_ view: JSONView) -> IncomingMessage {
        switch self {
        case .request(let id, _, let method, let params): .request(id: id, idView: view, method: method, params: params)
        case .invalid(_, let reason): .invalid(idView: view, reason: reason)
        case .unholdable(_, let error, let answered): .unholdable(idView: view, error: error, answered: answered)
        case .notification, .response, .unreadableResponse: self
        }
    }

    /// Whether its id is a real number (whose text must be looked at before it is echoed).
    var hasRealID: Bool {
        switch self {
        case .request(let id, _, _, _): if case .number = id { true } else { false }
        case .invalid(let idView, _), .unholdable(let idView, _, _): idView?.kind == .real
        case .notification, .response, .unreadableResponse: false
        }
    }

    /// The id of a request or an invalid message, as sent.
    var idView: JSONView? {
        switch self {
        case .request(_, let idView, _, _): idView
        case .invalid(let idView, _), .unholdable(let idView, _, _): idView
        case .notification, .response, .unreadableResponse: nil
        }
    }
}

/// The members of an envelope, found in one pass over the object instead of one hash lookup each.
private struct EnvelopeMembers {
    var id: JSONView?
    var jsonrpc: JSONView?
    var method: JSONView?
    var params: JSONView?
    var result: JSONView?
    var error: JSONView?

    init(_ object: JSONView) {
        var iterator = json_object_iter(object.pointer)
        while let current = iterator {
            let value = JSONView(json_object_iter_value(current))
            let key = json_object_iter_key(current)
            // memcmp on the name's bytes: a generic comparison of the two sequences cost more than the
            // rest of the classification.
            switch json_object_iter_key_len(current) {
            case 2 where Self.equal(key, "id"): id = value
            case 5 where Self.equal(key, "error"): error = value
            case 6 where Self.equal(key, "method"): method = value
            case 6 where Self.equal(key, "params"): params = value
            case 6 where Self.equal(key, "result"): result = value
            case 7 where Self.equal(key, "jsonrpc"): jsonrpc = value
            default: break
            }
            iterator = json_object_iter_next(object.pointer, current)
        }
    }

    /// Whether the member name at `key` (of `name`'s length) is `name`.
    private static func equal(_ key: UnsafePointer<CChar>?, _ name: StaticString) -> Bool {
        guard let key else { return false }
        return memcmp(key, name.utf8Start, name.utf8CodeUnitCount) == 0
    }
}
