#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import SystemCalls

/// Writes every frame a connection receives and sends to a file, one JSON line each:
/// `{"t": ms since start, "dir": "in"|"out", "frame": message}` — after a header line
/// `{"switchboard": "recording", "version": 1, "args": {…}, "volatile": []}` (``Recording``).
///
/// A frame that is not JSON is kept as `"text"` instead of `"frame"`. Frames are split from the byte
/// streams as the connection's own framer splits them (NDJSON or LSP, detected), one line per message:
/// a batch is one line holding an array. Passwords are not kept (``SecretRedaction``).
public final class FrameRecorder: @unchecked Sendable {
    private let fd: Int32
    private let started = monotonicNanoseconds()
    /// Guards the two framers and the file's lines.
    private let lock = ConditionLock()
    private var input: Framer
    private var output: Framer

    /// Creates (or empties) `path` and writes the header with `args`, the flags a replay needs.
    /// Only a regular file is written: a FIFO or a device is refused without waiting for a reader.
    public init(path: String, args: JSONObject) throws(RecordingError) {
        fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o644)
        // ENXIO: a FIFO no one reads.
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: errno == ENXIO ? "not a regular file" : String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .cannotWrite(path: path, reason: "not a regular file")
        }
        guard ftruncate(fd, 0) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotWrite(path: path, reason: reason)
        }
        let limit = Int.max / 2
        input = Framer(framing: nil, maxMessageBytes: limit)
        output = Framer(framing: nil, maxMessageBytes: limit)
        let header: JSONObject = ["switchboard": "recording", "version": 1, "args": .object(args), "volatile": []]
        writeLine(.object(header))
    }

    deinit { close(fd) }

    /// Records bytes the peer sent.
    public func received(_ chunk: UnsafeRawBufferPointer) {
        lock.withLock { input.consume(chunk) { record($0, direction: "in") } }
    }

    /// Records bytes the host sent.
    public func sent(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { chunk in
            lock.withLock { output.consume(chunk) { record($0, direction: "out") } }
        }
    }

    private func record(_ event: FramerEvent, direction: String) {
        guard case .message(let body) = event else { return }
        var line: JSONObject = ["t": .integer(Int64((monotonicNanoseconds() - started) / 1_000_000)), "dir": .string(direction)]
        if let frame = try? JSONValue(parsing: body) {
            line["frame"] = SecretRedaction.redact(frame)
        } else {
            line["text"] = .string(SecretRedaction.redact(text: String(decoding: body, as: UTF8.self)))
        }
        writeLine(.object(line))
    }

    /// One `write` per line, so lines never interleave (callers hold the lock, or it is the header).
    private func writeLine(_ value: JSONValue) {
        SystemCall.writeAll(fd, Array(value.jsonText().utf8) + [0x0A])
    }
}

public enum RecordingError: Error, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)
    case cannotRead(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write the recording \(path): \(reason)"
        case .cannotRead(let path, let reason): "cannot read the recording \(path): \(reason)"
        }
    }
}
