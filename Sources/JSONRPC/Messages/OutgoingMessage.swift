import CJansson
import Jansson

/// Builds the messages the connection sends, as jansson objects with exactly the members JSON-RPC
/// allows: a response has `jsonrpc`, `id` and one of `result` / `error`, nothing else.
enum OutgoingMessage {
    /// A response echoing the id exactly as the request had it (`id` points into the request).
    static func response(id: JSONView, result: JanssonValue) -> JanssonValue {
        response(idTaking: json_incref(id.pointer)!, result: result)
    }

    /// A response to a request whose message is gone, with the id rebuilt from its Swift form.
    static func response(id: RequestID, result: JanssonValue) -> JanssonValue {
        response(idTaking: id.makeJanssonPointer(), result: result)
    }

    /// An error response; `id` is `nil` when the request's id could not be read (it is then `null`).
    static func errorResponse(id: JSONView?, error: ResponseError) -> JanssonValue {
        errorResponse(idTaking: id.map { json_incref($0.pointer)! } ?? json_null(), error: error)
    }

    static func errorResponse(id: RequestID, error: ResponseError) -> JanssonValue {
        errorResponse(idTaking: id.makeJanssonPointer(), error: error)
    }

    private static func response(idTaking id: UnsafeMutablePointer<json_t>, result: JanssonValue) -> JanssonValue {
        let message = envelope()
        message.set("id", taking: id)
        message.set("result", taking: result.retained())
        return message
    }

    private static func errorResponse(idTaking id: UnsafeMutablePointer<json_t>, error: ResponseError) -> JanssonValue {
        let message = envelope()
        message.set("id", taking: id)
        message.set("error", taking: error.makeJansson().retained())
        return message
    }

    static func notification(method: String, params: JanssonValue?) -> JanssonValue {
        let message = envelope()
        message.set("method", taking: JanssonValue.makeString(method))
        if let params { message.set("params", taking: params.retained()) }
        return message
    }

    static func request(id: Int64, method: String, params: JanssonValue?) -> JanssonValue {
        let message = envelope()
        message.set("id", taking: json_integer(json_int_t(id)))
        message.set("method", taking: JanssonValue.makeString(method))
        if let params { message.set("params", taking: params.retained()) }
        return message
    }

    private static func envelope() -> JanssonValue {
        let message = JanssonValue.object()
        message.set("jsonrpc", taking: json_string_nocheck("2.0"))
        return message
    }
}

extension RequestID {
    /// The id as a new jansson reference, written as it was read.
    func makeJanssonPointer() -> UnsafeMutablePointer<json_t> {
        switch self {
        case .integer(let value): json_integer(json_int_t(value))
        case .string(let value): JanssonValue.makeString(value)
        case .number(let value): json_real(value) ?? json_null()
        case .null: json_null()
        }
    }
}
