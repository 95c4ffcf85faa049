#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames a thread writes with ``FileDescriptorSink/writeIfRoom(_:)`` while it handles one chunk of
/// input, gathered to go out in one write per sink when the chunk is done: pipelined calls relayed to
/// a plugin, and the plugin's answers to them, cost one write (and one wake-up of the reader at the
/// other end) per chunk instead of one per message.
///
/// - Important: whatever was gathered is written before the thread can wait for anything
///   (``MessageReader`` flushes it with its own replies), so a peer never waits for frames held here.
final class WriteCoalescing {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private var gathered: [(sink: FileDescriptorSink, bytes: [UInt8])] = []

    /// Runs `body` with this thread's `writeIfRoom` frames gathered, then writes them.
    static func gathering(_ body: () -> Void) {
        guard pthread_getspecific(key) == nil else { return body() }
        let batch = WriteCoalescing()
        pthread_setspecific(key, Unmanaged.passUnretained(batch).toOpaque())
        body()
        pthread_setspecific(key, nil)
        batch.flush()
    }

    /// Keeps `bytes` for `sink` when this thread gathers; false when it does not.
    static func gather(_ bytes: [UInt8], for sink: FileDescriptorSink) -> Bool {
        guard let batch = current else { return false }
        if let index = batch.gathered.firstIndex(where: { $0.sink === sink }) {
            batch.gathered[index].bytes.append(contentsOf: bytes)
        } else {
            batch.gathered.append((sink, bytes))
        }
        return true
    }

    /// Writes what this thread gathered so far (before it waits for anything).
    static func flushGathered() { current?.flush() }

    private static var current: WriteCoalescing? {
        pthread_getspecific(key).map { Unmanaged<WriteCoalescing>.fromOpaque($0).takeUnretainedValue() }
    }

    private func flush() {
        let frames = gathered
        gathered = []
        for (sink, bytes) in frames where !sink.writeNowIfRoom(bytes) {
            Task { await sink.enqueue(bytes) }
        }
    }
}
