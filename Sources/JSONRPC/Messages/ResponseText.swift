import CJansson
import Jansson

/// A response's text written from its parts, without building its envelope object:
/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`, the bytes jansson writes for the object
/// ``OutgoingMessage/response(id:result:)`` builds. The id and the result are still written by
/// jansson (through ``JSONWriter``, so a real keeps its shortest digits and a ``RawNumber`` id its
/// text); only the fixed members are copied. For the answers the input thread gives at once
/// (`host.ping`), building, writing and freeing the envelope was about a fifth of the work.
enum ResponseText {
    static func append(id: JSONView, result: JSONView, writer: JSONWriter, to body: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","id":"#, to: &body)
        appendID(id, writer: writer, to: &body)
        append(#","result":"#, to: &body)
        writer.append(result, to: &body)
        body.append(UInt8(ascii: "}"))
    }

    /// Appends the frame of `message` if it is a response whose `result` is raw JSON text (a
    /// ``JSONTextEncodable`` answer, such as an agenda of megabytes): sized once, its text copied once.
    /// The general path would write the envelope part by part into a growing buffer and then copy that
    /// into the frame. False, with nothing appended, for any other message.
    static func appendFrame(ofRawResponse message: JSONView, framing: Framing, writer: JSONWriter,
                            to output: inout [UInt8]) -> Bool {
        guard sb_json_typeof(message.pointer) == JSON_OBJECT, json_object_size(message.pointer) == 3,
              json_object_getn(message.pointer, "jsonrpc", 7) != nil,
              let id = json_object_getn(message.pointer, "id", 2),
              let result = json_object_getn(message.pointer, "result", 6),
              let text = RawNumber.text(of: JSONView(result)) else { return false }
        var head: [UInt8] = []
        append(#"{"jsonrpc":"2.0","id":"#, to: &head)
        appendID(JSONView(id), writer: writer, to: &head)
        append(#","result":"#, to: &head)
        let bodyCount = head.count + text.count + 1
        FramingBytes.reserve(bodyCount + FramingBytes.maximumHeaderCount, in: &output)
        if framing == .lsp { FramingBytes.appendLSPHeader(length: bodyCount, to: &output) }
        output.append(contentsOf: head)
        output.append(contentsOf: text)
        output.append(UInt8(ascii: "}"))
        if framing == .ndjson { output.append(FramingBytes.lf) }
        return true
    }

    private static func appendID(_ id: JSONView, writer: JSONWriter, to body: inout [UInt8]) {
        if sb_json_typeof(id.pointer) == JSON_INTEGER {
            appendDecimal(Int64(json_integer_value(id.pointer)), to: &body)
        } else {
            writer.append(id, to: &body)
        }
    }

    private static func append(_ text: StaticString, to body: inout [UInt8]) {
        body.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The digits jansson writes for an integer (`%lld`).
    static func appendDecimal(_ value: Int64, to body: inout [UInt8]) {
        if value < 0 { body.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[19 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            body.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }
}
