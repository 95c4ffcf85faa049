import Jansson
import JSONRPC
import Logging

/// Sends a recording's input frames to a fresh connection and compares what comes back with what was
/// recorded: each answer by its id, and the notifications of each method as a collection (pushes may
/// interleave differently run to run), after masking the volatile paths.
///
/// Each input is sent once the replay has produced as many frames as the recording held before it, so
/// a client that waited for an answer or a notification before its next request is replayed the same way.
public enum Replayer {
    /// How long to wait for the frames an input waited for, or for the last answers: only a hang guard.
    public static let stepTimeoutNanoseconds: UInt64 = 30_000_000_000

    public static func replay(_ recording: Recording, dispatcher: Dispatcher, logger: Logger,
                              extraVolatile: [VolatilePath] = []) -> ReplayReport {
        let sink = ReplaySink()
        let connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink, logger: logger)
        let reader = MessageReader(connection: connection)
        var framesBefore = 0
        var notes: [String] = []
        for entry in recording.entries {
            guard entry.isInput else {
                framesBefore += 1
                continue
            }
            if !sink.waitForFrames(framesBefore, deadline: monotonicNanoseconds() + stepTimeoutNanoseconds) {
                notes.append("waited \(stepTimeoutNanoseconds / 1_000_000_000) s for \(framesBefore) frames before input at \(entry.milliseconds) ms; got \(sink.frames.count)")
            }
            let bytes = Array(entry.frame.jsonText().utf8) + [0x0A]
            bytes.withUnsafeBytes { reader.receive($0) }
        }
        reader.finishInput()
        connection.waitUntilIdle(deadline: monotonicNanoseconds() + stepTimeoutNanoseconds)
        let recordedOutputs = recording.entries.filter { !$0.isInput }.map(\.frame)
        var report = ReplayComparison.compare(recorded: recordedOutputs, replayed: sink.frames,
                                              inputs: recording.entries.filter(\.isInput).map(\.frame),
                                              volatile: recording.volatile + extraVolatile)
        report.differences.insert(contentsOf: notes, at: 0)
        return report
    }
}

/// What a replay found: one sentence per difference; none when everything matched.
public struct ReplayReport: Sendable {
    public var answersCompared: Int
    public var notificationsCompared: Int
    public var differences: [String]

    public var matches: Bool { differences.isEmpty }
}

/// Keeps the frames the replayed connection sends, and lets the replay wait for a count of them.
private final class ReplaySink: FrameSink, @unchecked Sendable {
    private let lock = ConditionLock()
    private var received: [JSONValue] = []

    func writeFromInput(_ bytes: [UInt8]) { keep(bytes) }
    func enqueue(_ bytes: [UInt8]) async { keep(bytes) }
    func offer(_ bytes: [UInt8]) -> Bool {
        keep(bytes)
        return true
    }
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) {}
    func flush(deadline: UInt64?) -> Bool { true }

    var frames: [JSONValue] { lock.withLock { received } }

    func waitForFrames(_ count: Int, deadline: UInt64) -> Bool {
        lock.withLock {
            while received.count < count {
                if !lock.wait(until: deadline) { return received.count >= count }
            }
            return true
        }
    }

    private func keep(_ bytes: [UInt8]) {
        let frames = bytes.split(separator: 0x0A).compactMap { try? JSONValue(parsing: $0) }
        lock.withLock {
            received += frames
            lock.broadcast()
        }
    }
}
