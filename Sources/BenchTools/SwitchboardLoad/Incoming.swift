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
