import Jansson

/// Decodes `params` straight from the parsed message into a method's `Params` type.
///
/// Named params (an object) are the rule. An absent `params` decodes as `{}`, so methods whose
/// members are all optional can be called bare. Positional params (an array) are accepted only by
/// methods that take none (`[]`) and by free-form `JSONValue` params.
///
/// Params are strict: a member the `Params` type never reads, at any depth, is `-32602` naming it
/// (`_meta` at the top aside: MCP and LSP carry progress tokens there), and so is a string holding
/// `U+0000`. Types that must take members they do not know (an LSP `initialize`) adopt ``OpenParams``.
enum ParamsDecoding {
    /// `open`: `P` is ``OpenParams`` (``RPCMethod/paramsAreOpen``), and takes members it does not know.
    static func decode<P: Decodable>(_ type: P.Type, from params: JSONView?, open: Bool) throws -> P {
        if P.self == JSONValue.self { return (params.map(JSONValue.init) ?? .null) as! P }
        if P.self == EmptyParams.self {
            if let params { try refuseMembers(of: params) }
            return EmptyParams() as! P
        }
        let decoder = open ? openDecoder : strictDecoder
        guard let params else { return try decoder.decode(P.self, from: emptyObject.view) }
        guard params.kind == .object else {
            throw JSONFieldError(field: "", expected: "object (named params)", got: params.preview())
        }
        return try decoder.decode(P.self, from: params)
    }

    /// Members that are never read: what ``OpenParams`` and strict decoding accept without asking.
    static let metaMember = "_meta"

    private static let strictDecoder = {
        var decoder = JanssonDecoder()
        decoder.rejectsNUL = true
        decoder.unknownMembers = .reject
        decoder.acceptedTopLevelMembers = [metaMember]
        return decoder
    }()

    private static let openDecoder = {
        var decoder = JanssonDecoder()
        decoder.rejectsNUL = true
        return decoder
    }()

    /// A method that takes no params accepts `[]`, `{}` and `{"_meta": …}`, and nothing else.
    private static func refuseMembers(of params: JSONView) throws(JSONFieldError) {
        switch params.kind {
        case .array where params.count > 0:
            throw JSONFieldError(field: "", expected: "no params", got: params.preview())
        case .object:
            var unknown: (String, JSONView)?
            params.forEachMember { name, value in
                if unknown == nil, name != metaMember { unknown = (name, value) }
            }
            if let (name, value) = unknown {
                throw JSONFieldError(field: name, expected: "no member of this name (this method takes no params)", got: value.preview())
            }
        default:
            break
        }
    }

    private nonisolated(unsafe) static let emptyObject = JanssonValue.object()
}

/// `Params` that accept members they do not read, at every depth: handshakes whose clients send
/// what their protocol defines (LSP's `initialize` carries `capabilities`, `rootUri`, …).
public protocol OpenParams: Decodable {}

/// Encodes a method's result into a jansson value.
enum ResultEncoding {
    static func encode<R: Encodable>(_ result: R) throws -> JanssonValue {
        try scalar(result) ?? JanssonEncoder().encode(result)
    }

    /// ``encode(_:)`` for a type known to be neither ``JanssonEncodable`` nor ``JSONTextEncodable``
    /// (``RPCMethod/encode(result:)``): no cast asks.
    static func encodePlain<R: Encodable>(_ result: R) throws -> JanssonValue {
        try scalar(result) ?? JanssonEncoder().encodeThroughEncoder(result)
    }

    /// Strings and `JSONValue`s, the commonest results that need no encoder: metatype checks are
    /// cheap where a dynamic cast is not.
    private static func scalar<R: Encodable>(_ result: R) -> JanssonValue? {
        if R.self == String.self { return JanssonValue.string(unsafeBitCast(result, to: String.self)) }
        if R.self == JSONValue.self { return unsafeBitCast(result, to: JSONValue.self).makeJansson() }
        return nil
    }
}
