#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames a thread sends without waiting (requests relayed to a plugin, a plugin's answers relayed to
/// the client) while it handles one chunk of input, gathered to go out in one write per output when
/// the chunk is done: pipelined calls cost one write (and one wake-up of the reader at the other end)
/// per chunk instead of one per message.
///
/// - Important: whatever was gathered is written before the thread can wait for anything
///   (``MessageReader`` flushes it with its own replies), so a peer never waits for frames held here;
///   and what was to run once a frame is queued (releasing a request's slot) runs only then.
final class WriteCoalescing {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private struct Output {
        let sink: any FrameSink
        var bytes: [UInt8]
        var queued: [@Sendable () -> Void]
    }

    private var gathered: [Output] = []

    /// Runs `body` with this thread's frames gathered (``send(_:to:queued:)``), then writes them.
    static func gathering(_ body: () -> Void) {
        guard pthread_getspecific(key) == nil else { return body() }
        let batch = WriteCoalescing()
        pthread_setspecific(key, Unmanaged.passUnretained(batch).toOpaque())
        body()
        pthread_setspecific(key, nil)
        batch.flush()
    }

    /// Sends `bytes` to `sink` without waiting: gathered while this thread gathers, else written now if
    /// the output has room, else queued by a task; `queued` runs once they are out of the way.
    static func send(_ bytes: [UInt8], to sink: any FrameSink, queued: (@Sendable () -> Void)? = nil) {
        guard let batch = current else { return write(bytes, to: sink, queued: queued.map { [$0] } ?? []) }
        if let index = batch.gathered.firstIndex(where: { $0.sink === sink }) {
            batch.gathered[index].bytes.append(contentsOf: bytes)
            if let queued { batch.gathered[index].queued.append(queued) }
        } else {
            batch.gathered.append(Output(sink: sink, bytes: bytes, queued: queued.map { [$0] } ?? []))
        }
    }

    /// Appends `bytes` to what this thread gathered for `sink`, if it gathered anything for it, and
    /// returns true: a notification sent meanwhile (`notifications/cancelled` after the request it
    /// cancels, in the same chunk) must follow those frames, not overtake them. False, with nothing
    /// taken, otherwise.
    static func joinGathered(_ bytes: [UInt8], to sink: any FrameSink) -> Bool {
        guard let batch = current, let index = batch.gathered.firstIndex(where: { $0.sink === sink }) else { return false }
        batch.gathered[index].bytes.append(contentsOf: bytes)
        return true
    }

    /// Writes what this thread gathered so far (before it waits for anything).
    static func flushGathered() { current?.flush() }

    private static var current: WriteCoalescing? {
        pthread_getspecific(key).map { Unmanaged<WriteCoalescing>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func write(_ bytes: [UInt8], to sink: any FrameSink, queued: [@Sendable () -> Void]) {
        if sink.writeIfRoom(bytes) {
            queued.forEach { $0() }
        } else {
            Task {
                await sink.enqueue(bytes)
                queued.forEach { $0() }
            }
        }
    }

    private func flush() {
        let outputs = gathered
        gathered = []
        for output in outputs { Self.write(output.bytes, to: output.sink, queued: output.queued) }
    }
}
