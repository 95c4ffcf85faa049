import Jansson
import JSONRPC

/// The sink of a plugin's stdin, watching what the host's reader answers on its own: a parse error or
/// an invalid-request error is the reader's verdict that the plugin wrote something that is not
/// JSON-RPC (or a frame over the size limit), which stops the plugin (`reason: "protocol"`).
///
/// Only frames written from the input thread are looked at: the reader's own replies go that way,
/// while requests to the plugin and answers of task-run callbacks do not, so calls cost nothing extra.
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
        base.writeFromInput(bytes)
    }

    func enqueue(_ bytes: [UInt8]) async { await base.enqueue(bytes) }
    func offer(_ bytes: [UInt8]) -> Bool { base.offer(bytes) }
    func writeIfRoom(_ bytes: [UInt8]) -> Bool { base.writeIfRoom(bytes) }
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) { base.setRoomHandler(handler) }
    func flush(deadline: UInt64?) -> Bool { base.flush(deadline: deadline) }

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
