import Jansson
import JSONRPC

/// The sink of a plugin's stdin, watching two ways the plugin can break the protocol, each of which
/// stops it (`reason: "protocol"`):
///
/// - what the host's reader answers on its own: a parse error or an invalid-request error is the
///   reader's verdict that the plugin wrote something that is not JSON-RPC (or a frame over the size
///   limit). Only frames written from the input thread are looked at: the reader's own replies go that
///   way, while requests to the plugin and answers of task-run callbacks do not, so calls cost nothing
///   extra;
/// - whether the plugin reads its stdin: no frame to it ever waits for room (a wait would stop the
///   plugin's reader thread, which must read its stdout, or the host's input thread), nor is one
///   dropped; each is written or queued in order, and once more than the sink's `limit` waits unread,
///   the plugin is not reading and is stopped.
final class ProtocolWatchSink: FrameSink {
    let base: FileDescriptorSink
    private let onViolation: @Sendable (String) -> Void

    init(base: FileDescriptorSink, onViolation: @escaping @Sendable (String) -> Void) {
        self.base = base
        self.onViolation = onViolation
    }

    func writeFromInput(_ bytes: [UInt8]) {
        if let violation = Self.violation(in: bytes) {
            onViolation(violation)
            return
        }
        deliver(bytes)
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

    /// The message of the first parse or invalid-request error among NDJSON `frames`, if any.
    static func violation(in frames: [UInt8]) -> String? {
        for line in frames.split(separator: 0x0A) {
            guard let message = try? JSONValue(parsing: line) else { continue }
            for reply in message.arrayValue ?? [message] {
                guard let error = reply["error"], let code = error["code"]?.int64Value,
                      code == Int64(ErrorCode.parseError.rawValue) || code == Int64(ErrorCode.invalidRequest.rawValue) else { continue }
                return error["message"]?.stringValue ?? "not JSON-RPC"
            }
        }
        return nil
    }
}
