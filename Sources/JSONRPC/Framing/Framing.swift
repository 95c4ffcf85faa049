/// How JSON-RPC messages are delimited on a byte stream.
public enum Framing: String, Sendable, CaseIterable {
    /// One JSON message per line, ended by `\n` (a `\r` before it is dropped).
    case ndjson
    /// The Language Server Protocol base protocol: `Content-Length: N\r\n\r\n` and then N bytes of body.
    case lsp

    /// Appends one outgoing frame holding `body` to `output` (NDJSON: body + "\n"; LSP: "Content-Length: N\r\n\r\n" + body).
    ///
    /// The body is not inspected: for NDJSON the caller must make sure it holds no newline
    /// (compact JSON never does).
    public func appendFrame(body: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        FramingBytes.reserve(body.count + FramingBytes.maximumHeaderCount, in: &output)
        switch self {
        case .ndjson:
            output.append(contentsOf: body)
            output.append(FramingBytes.lf)
        case .lsp:
            FramingBytes.appendLSPHeader(length: body.count, to: &output)
            output.append(contentsOf: body)
        }
    }
}
