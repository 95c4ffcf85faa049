import JSONRPC

/// A sink that hands every frame to a ``FrameRecorder`` as it passes on to the real output.
public final class RecordingSink: FrameSink, Sendable {
    private let output: any FrameSink
    private let recorder: FrameRecorder

    public init(wrapping output: any FrameSink, recorder: FrameRecorder) {
        self.output = output
        self.recorder = recorder
    }

    public func writeFromInput(_ bytes: [UInt8]) {
        recorder.sent(bytes)
        output.writeFromInput(bytes)
    }

    public func enqueue(_ bytes: [UInt8]) async {
        recorder.sent(bytes)
        await output.enqueue(bytes)
    }

    public func offer(_ bytes: [UInt8]) -> Bool {
        guard output.offer(bytes) else { return false }
        recorder.sent(bytes)
        return true
    }

    public func writeIfRoom(_ bytes: [UInt8]) -> Bool {
        guard output.writeIfRoom(bytes) else { return false }
        recorder.sent(bytes)
        return true
    }

    public func setRoomHandler(_ handler: @escaping @Sendable () -> Void) { output.setRoomHandler(handler) }

    @discardableResult
    public func flush(deadline: UInt64?) -> Bool { output.flush(deadline: deadline) }
}
