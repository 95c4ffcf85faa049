import Jansson
import JSONRPC

/// What a host wrote, checked: every frame is well framed and holds a JSON-RPC 2.0 message a client
/// can use, and no answer is an internal error (a request reaching code that failed unexpectedly).
public struct OutputCheck {
    /// The responses written, in order (each element of a batch on its own).
    public private(set) var responses: [JSONValue] = []
    /// Messages the host sent on its own (notifications, requests to the peer).
    public private(set) var messages: [JSONValue] = []

    public init(_ bytes: [UInt8], framing: Framing?, allowInternalErrors: Bool = false) {
        var framer = Framer(framing: framing, maxMessageBytes: Int.max / 4)
        var bodies: [[UInt8]] = []
        bytes.withUnsafeBytes { buffer in
            framer.consume(buffer) { event in
                guard case .message(let body) = event else {
                    require(false, "the host wrote a broken frame: \(event)")
                    return
                }
                bodies.append(Array(body))
            }
        }
        framer.finish { event in require(false, "the host's output ends inside a frame: \(event)") }
        for body in bodies {
            let parsed = try? JSONValue(parsing: body)
            require(parsed != nil, "the host wrote a frame that is not JSON: \(String(decoding: body.prefix(200), as: UTF8.self))")
            guard let parsed else { continue }
            if case .array(let elements) = parsed {
                require(!elements.isEmpty, "the host wrote an empty batch")
                for element in elements { add(element, allowInternalErrors: allowInternalErrors) }
            } else {
                add(parsed, allowInternalErrors: allowInternalErrors)
            }
        }
    }

    private mutating func add(_ message: JSONValue, allowInternalErrors: Bool) {
        let text = message.jsonText()
        require(message["jsonrpc"] == "2.0", "no jsonrpc 2.0 in \(text)")
        if message["method"] != nil {
            require(message["method"]?.stringValue != nil, "a method that is not a string: \(text)")
            messages.append(message)
            return
        }
        require(message.objectValue?.keys.contains("id") == true, "a response without id: \(text)")
        require((message["result"] == nil) != (message["error"] == nil), "not exactly one of result and error: \(text)")
        if let error = message["error"] {
            require(error["code"]?.int64Value != nil && error["message"]?.stringValue != nil, "a malformed error: \(text)")
            require(allowInternalErrors || error["code"]?.int64Value != -32603, "an internal error: \(text)")
        }
        responses.append(message)
    }
}
