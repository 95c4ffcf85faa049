import Jansson

/// Decodes `params` straight from the parsed message into a method's `Params` type.
///
/// Named params (an object) are the rule. An absent `params` decodes as `{}`, so methods whose
/// members are all optional can be called bare. Positional params (an array) are accepted only by
/// methods that take none (`[]`) and by free-form `JSONValue` params.
enum ParamsDecoding {
    static func decode<P: Decodable>(_ type: P.Type, from params: JSONView?) throws -> P {
        if P.self == JSONValue.self { return (params.map(JSONValue.init) ?? .null) as! P }
        if P.self == EmptyParams.self {
            if let params, params.kind == .array, params.count > 0 {
                throw JSONFieldError(field: "", expected: "no params", got: params.preview())
            }
            return EmptyParams() as! P
        }
        guard let params else { return try JanssonDecoder().decode(P.self, from: emptyObject.view) }
        guard params.kind == .object else {
            throw JSONFieldError(field: "", expected: "object (named params)", got: params.preview())
        }
        return try JanssonDecoder().decode(P.self, from: params)
    }

    private nonisolated(unsafe) static let emptyObject = JanssonValue.object()
}

/// Encodes a method's result into a jansson value.
enum ResultEncoding {
    static func encode<R: Encodable>(_ result: R) throws -> JanssonValue {
        // Metatype checks are cheap where a dynamic cast is not; strings are the commonest scalar result.
        if R.self == String.self { return JanssonValue.string(unsafeBitCast(result, to: String.self)) }
        if R.self == JSONValue.self { return unsafeBitCast(result, to: JSONValue.self).makeJansson() }
        return try JanssonEncoder().encode(result)
    }
}
