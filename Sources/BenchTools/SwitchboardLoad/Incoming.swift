import CJansson
import Jansson

/// One message from the server, read with jansson: a response (its integer id, result or error), a
/// notification, or a request of its own.
///
/// The whole frame is parsed, not scanned, so a malformed answer counts as an error here where a
/// scanner could let it pass; the parse is the driver's own CPU, outside every latency it measures
/// (a frame's time is taken when its bytes were read).
struct Incoming {
    enum Kind {
        case response(id: Int64?, hasResult: Bool)
        case notification(method: String)
        case serverRequest
        case malformed
    }

    let kind: Kind
    /// The parsed message, kept for callers that look inside (`--match`, `--show`).
    let value: JanssonValue?

    init(_ bytes: UnsafeRawBufferPointer) {
        guard let value = try? JSONParser.parse(bytes), value.view.kind == .object else {
            kind = .malformed
            value = nil
            return
        }
        self.value = value
        let object = value.pointer
        let method = json_object_get(object, "method")
        let id = json_object_get(object, "id")
        switch (id, method) {
        case (nil, .some(let method)):
            kind = .notification(method: json_string_value(method).map { String(cString: $0) } ?? "")
        case (.some, .some):
            kind = .serverRequest
        case (.some(let id), nil):
            let result = json_object_get(object, "result") != nil
            let error = json_object_get(object, "error") != nil
            guard result != error else {
                kind = .malformed
                return
            }
            kind = .response(id: JSONView(id).int64, hasResult: result)
        case (nil, nil):
            kind = .malformed
        }
    }

    /// The string at a dotted member path (`params.message.clientMessageId`), if there is one.
    func string(at path: [String]) -> String? {
        guard var view = value?.view else { return nil }
        for key in path {
            guard let next = view[key] else { return nil }
            view = next
        }
        return view.string
    }

    /// A short excerpt of the message, for error lines.
    var excerpt: String { value?.view.preview(limit: 300) ?? "(not JSON)" }
}

/// A request frame with the id (and, in push runs, a unique token) filled in: the method and params
/// are framed once, each request only writes its number.
struct RequestTemplate {
    private let prefix: [UInt8] = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private let suffixParts: [[UInt8]]
    private let suffixLength: Int
    let framing: Framing

    /// `params` is compact JSON or nil; in it, each `%ID%` becomes the request's token.
    init(method: String, params: String?, framing: Framing) {
        let methodText = JSONWriterText.quoted(method)
        let suffix = params.map { #","method":\#(methodText),"params":\#($0)}"# } ?? #","method":\#(methodText)}"#
        suffixParts = suffix.split(separator: "%ID%", omittingEmptySubsequences: false).map { Array($0.utf8) }
        suffixLength = suffixParts.reduce(0) { $0 + $1.count }
        self.framing = framing
    }

    func write(id: UInt64, token: String = "", into buffer: ByteBuffer) {
        // The id's digits, written backwards into a small stack buffer: no allocation per request.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var value = id
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            let idText = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[first...]))
            let tokenBytes = Array(token.utf8)
            tokenBytes.withUnsafeBytes { tokenText in
                if framing == .lsp {
                    let length = prefix.count + idText.count + suffixLength + tokenText.count * (suffixParts.count - 1)
                    buffer.append(Array("Content-Length: \(length)\r\n\r\n".utf8))
                }
                buffer.append(prefix)
                buffer.append(idText)
                for (index, part) in suffixParts.enumerated() {
                    if index > 0 { buffer.append(tokenText) }
                    buffer.append(part)
                }
                if framing == .ndjson { buffer.append(Self.newline) }
            }
        }
    }

    private static let newline: [UInt8] = [0x0A]
}

/// JSON text through jansson (the project's `JSONWriter`).
enum JSONWriterText {
    /// `text` as a JSON string, quoted and escaped.
    static func quoted(_ text: String) -> String {
        let value = JanssonValue.string(text)
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }

    /// Compact JSON text of `text` if it is JSON, else nil.
    static func compact(_ text: String) -> String? {
        guard let value = try? JSONParser.parse(text) else { return nil }
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }
}
