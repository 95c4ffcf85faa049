import Synchronization

/// A sink that keeps every byte written, for in-process calls and tests; `onWrite` sees each write
/// as it happens (on the writing thread). It has no bound: nothing waits and nothing is refused.
public final class CollectingSink: FrameSink, Sendable {
    private let state = Mutex<(bytes: [UInt8], writes: Int)>(([], 0))
    private let onWrite: @Sendable ([UInt8]) -> Void

    public init(onWrite: @escaping @Sendable ([UInt8]) -> Void = { _ in }) {
        self.onWrite = onWrite
    }

    public func writeFromInput(_ bytes: [UInt8]) { record(bytes) }
    public func enqueue(_ bytes: [UInt8]) async { record(bytes) }
    public func offer(_ bytes: [UInt8]) -> Bool {
        record(bytes)
        return true
    }
    public func writeIfRoom(_ bytes: [UInt8]) -> Bool {
        record(bytes)
        return true
    }
    public func setRoomHandler(_ handler: @escaping @Sendable () -> Void) {}
    public func flush(deadline: UInt64?) -> Bool { true }

    private func record(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        state.withLock {
            $0.bytes.append(contentsOf: bytes)
            $0.writes += 1
        }
        onWrite(bytes)
    }

    /// Everything written so far.
    public var bytes: [UInt8] { state.withLock { $0.bytes } }
    /// How many writes there were: the input thread writes each chunk's replies at once.
    public var writeCount: Int { state.withLock { $0.writes } }
}
