import Jansson

/// A request's text written from its parts, like ``ResponseText``:
/// `{"jsonrpc":"2.0","id":ID,"method":METHOD,"params":PARAMS}`, the bytes jansson writes for the
/// object ``OutgoingMessage/request(id:method:params:)`` builds. Every call relayed to a plugin is one
/// (`tools/call`), so the envelope object, its hashing and jansson's `%lld` are saved on each.
enum RequestText {
    static func append(id: Int64, method: String, params: JSONView?, writer: JSONWriter, to body: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","id":"#, to: &body)
        ResponseText.appendDecimal(id, to: &body)
        append(#","method":"#, to: &body)
        if method.utf8.allSatisfy(isPlain) {
            body.append(UInt8(ascii: "\""))
            body.append(contentsOf: method.utf8)
            body.append(UInt8(ascii: "\""))
        } else {
            let name = JanssonValue.string(method)
            writer.append(name.view, to: &body)
        }
        if let params {
            append(#","params":"#, to: &body)
            writer.append(params, to: &body)
        }
        body.append(UInt8(ascii: "}"))
    }

    /// A byte jansson copies as it is into a string (printable ASCII but `"` and `\`).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    private static func append(_ text: StaticString, to body: inout [UInt8]) {
        body.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
