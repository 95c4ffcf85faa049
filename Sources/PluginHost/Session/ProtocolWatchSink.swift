import Jansson
import JSONRPC
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The sink of a plugin's stdin, watching two ways the plugin can break the protocol, each of which
/// stops it (`reason: "protocol"`):
///
/// - what the host's reader answers on its own: an invalid-request error is the reader's verdict that
///   the plugin wrote something that is not JSON-RPC (or a frame over the size limit). A parse error is
///   a line that is not JSON: skipped, its reply not sent, and logged (``StrayLines``) unless the
///   plugin writes more than a hundred within a minute. Only frames written from the input thread are
///   looked at: the reader's own replies go that way, while requests to the plugin and answers of
///   task-run callbacks do not, so calls cost nothing extra;
/// - whether the plugin reads its stdin: no frame to it ever waits for room (a wait would stop the
///   plugin's reader thread, which must read its stdout, or the host's input thread), nor is one
///   dropped; each is written or queued in order, and once more than the sink's `limit` waits unread,
///   the plugin is not reading and is stopped.
final class ProtocolWatchSink: FrameSink {
    let base: FileDescriptorSink
    private let onViolation: @Sendable (String) -> Void
    private let onStray: @Sendable (_ skipped: Int) -> Void
    private let stray = Mutex(StrayLines())

    /// `onStray` is told when a line that is not JSON was skipped and should be logged (with how many
    /// were skipped since the last log line).
    init(base: FileDescriptorSink, onViolation: @escaping @Sendable (String) -> Void,
         onStray: @escaping @Sendable (_ skipped: Int) -> Void = { _ in }) {
        self.base = base
        self.onViolation = onViolation
        self.onStray = onStray
    }

    func writeFromInput(_ bytes: [UInt8]) {
        let scan = ReaderReplies(bytes)
        if let violation = scan.violation {
            onViolation(violation)
            return
        }
        for _ in 0..<scan.strays {
            switch stray.withLock({ $0.record(at: monotonicNanoseconds()) }) {
            case .log(let skipped): onStray(skipped)
            case .skip: break
            case .tooMany:
                onViolation("it wrote more than \(StrayLines.limit) lines that are not JSON within a minute")
                return
            }
        }
        if !scan.kept.isEmpty { deliver(scan.kept) }
    }

    /// `frames` without the reader's parse-error replies to lines that were not JSON (a stray line has no
    /// id to answer, and the plugin need not hear about it), and how many there were.
    static func withoutStrayLineReplies(_ frames: [UInt8]) -> (kept: [UInt8], strays: Int) {
        let scan = ReaderReplies(frames)
        return (scan.kept, scan.strays)
    }

    func enqueue(_ bytes: [UInt8]) async { deliver(bytes) }
    func offer(_ bytes: [UInt8]) -> Bool {
        deliver(bytes)
        return true
    }
    func writeIfRoom(_ bytes: [UInt8]) -> Bool {
        deliver(bytes)
        return true
    }
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) { base.setRoomHandler(handler) }
    func flush(deadline: UInt64?) -> Bool { base.flush(deadline: deadline) }

    /// Writes or queues `bytes` without waiting; a plugin with more than `limit` bytes unread is stopped
    /// (what it was sent meanwhile is lost with it: its calls fail with the reason).
    private func deliver(_ bytes: [UInt8]) {
        guard !base.writeUnlessBacklogged(bytes, over: base.limit) else { return }
        onViolation("it stopped reading its stdin: more than \(base.limit) bytes sent to it were unread")
    }

    /// The message of the first invalid-request error among NDJSON `frames`, if any (a parse error is a
    /// stray line, counted apart).
    static func violation(in frames: [UInt8]) -> String? { ReaderReplies(frames).violation }
}

/// The reader's own replies to a plugin, read once: the first invalid-request error (a violation), the
/// parse-error replies to stray lines (counted and left out), and the frames to send on.
private struct ReaderReplies {
    var violation: String?
    var strays = 0
    var kept: [UInt8]

    init(_ frames: [UInt8]) {
        var kept: [UInt8] = []
        for line in frames.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let message = try? JSONValue(parsing: line) else {
                kept += line
                kept.append(0x0A)
                continue
            }
            if violation == nil {
                violation = (message.arrayValue ?? [message]).lazy.compactMap { reply -> String? in
                    guard reply["error"]?["code"]?.int64Value == Int64(ErrorCode.invalidRequest.rawValue) else { return nil }
                    return reply["error"]?["message"]?.stringValue ?? "not JSON-RPC"
                }.first
            }
            if message["id"] == .null, message["error"]?["code"]?.int64Value == Int64(ErrorCode.parseError.rawValue) {
                strays += 1
            } else {
                kept += line
                kept.append(0x0A)
            }
        }
        self.kept = strays == 0 ? frames : kept
    }
}
