/// What a `Framer` found in its input.
///
/// The buffer in `.message` is valid only during the callback that receives it: it may point into the
/// chunk given to `Framer.consume` or into the framer's own buffer.
public enum FramerEvent {
    /// One complete message body (without its line end or headers).
    case message(UnsafeRawBufferPointer)
    /// A message body longer than the framer's `maxMessageBytes`; its bytes were skipped, not stored,
    /// but for its first and last few KiB (`ends`, valid only during the callback). `byteCount` is the
    /// body's full length (NDJSON: the line without its line end; LSP: the Content-Length). Reported
    /// once the body has been skipped (or input ended or was abandoned inside it).
    case oversized(byteCount: Int, limit: Int, ends: MessageEnds)
    /// An LSP header block that could not be used; the reason is a sentence naming what was wrong.
    /// The framer then discards input until the next "Content-Length:".
    case invalidHeader(String)
    /// An LSP body that ended (end of input, or abandoned) before its Content-Length bytes arrived;
    /// `ends` holds its first bytes (no tail: its end never came), valid only during the callback, so
    /// the request it began can be answered under its id.
    case truncated(expected: Int, received: Int, ends: MessageEnds)
}
