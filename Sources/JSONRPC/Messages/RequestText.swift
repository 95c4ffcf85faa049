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
        appendString(method, writer: writer, to: &body)
        if let params {
            append(#","params":"#, to: &body)
            writer.append(params, to: &body)
        }
        body.append(UInt8(ascii: "}"))
    }

    /// The same with params an object given as its members, in order: written from the parts, so no
    /// params object is built, hashed, written and freed per request (a relayed `tools/call`'s
    /// `{"name":…,"arguments":…}`). The bytes are those jansson writes for that object.
    static func append(id: Int64, method: String, members: [(key: String, value: JSONView)], writer: JSONWriter,
                       to body: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","id":"#, to: &body)
        ResponseText.appendDecimal(id, to: &body)
        append(#","method":"#, to: &body)
        appendString(method, writer: writer, to: &body)
        append(#","params":{"#, to: &body)
        for (index, member) in members.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            appendString(member.key, writer: writer, to: &body)
            body.append(UInt8(ascii: ":"))
            writer.append(member.value, to: &body)
        }
        append("}}", to: &body)
    }

    /// `text` as a JSON string: copied between quotes when jansson would copy it as it is, else written by jansson.
    private static func appendString(_ text: String, writer: JSONWriter, to body: inout [UInt8]) {
        var text = text
        let plain = text.withUTF8 { bytes in bytes.allSatisfy(isPlain) }
        if plain {
            body.append(UInt8(ascii: "\""))
            text.withUTF8 { body.append(contentsOf: $0) }
            body.append(UInt8(ascii: "\""))
        } else {
            let value = JanssonValue.string(text)
            writer.append(value.view, to: &body)
        }
    }

    /// A byte jansson copies as it is into a string (printable ASCII but `"` and `\`).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    private static func append(_ text: StaticString, to body: inout [UInt8]) {
        body.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
