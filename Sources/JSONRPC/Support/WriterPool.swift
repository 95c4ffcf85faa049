import Jansson
import Synchronization

/// Writers lent to request tasks. Each keeps the scratch buffer it has grown, so an answer of any size
/// is written by jansson in one pass instead of a trial into a small buffer and a second full pass.
final class WriterPool: Sendable {
    /// A writer is used by one task at a time: the pool hands it out exclusively and takes it back.
    private struct Lent: @unchecked Sendable { let writer: JSONWriter }

    private let idle = Mutex<[Lent]>([])
    private static let kept = 8

    func withWriter<R>(_ body: (JSONWriter) throws -> R) rethrows -> R {
        let lent = idle.withLock { $0.popLast() } ?? Lent(writer: JSONWriter(initialCapacity: 16 << 10))
        defer { idle.withLock { if $0.count < Self.kept { $0.append(lent) } } }
        return try body(lent.writer)
    }
}
