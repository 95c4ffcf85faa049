import Glibc

/// Bytes queued in one direction of a pipe: appended (or read from a descriptor) at the end,
/// consumed from the front. Plain memory, like rpcbench's buffer: the hot path of a run copies each
/// byte once and allocates nothing per message.
final class ByteBuffer {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int = 65_536) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    var count: Int { end - start }
    var isEmpty: Bool { start == end }

    /// The unconsumed bytes; valid until the buffer next changes.
    var unread: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + start, count: end - start) }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + end).copyMemory(from: source, byteCount: bytes.count)
        end += bytes.count
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// One `read` of up to `chunk` bytes into the end; what `read` returned.
    func read(from descriptor: Int32, chunk: Int = 262_144) -> Int {
        reserve(chunk)
        let count = Glibc.read(descriptor, base + end, chunk)
        if count > 0 { end += count }
        return count
    }

    func consume(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    func removeAll() {
        start = 0
        end = 0
    }

    /// Room for `extra` more bytes: the consumed prefix is dropped first, then the memory doubled.
    private func reserve(_ extra: Int) {
        if end + extra <= capacity { return }
        if start > 0 {
            (base).copyMemory(from: base + start, byteCount: end - start)
            end -= start
            start = 0
            if end + extra <= capacity { return }
        }
        var grown = capacity * 2
        while grown < end + extra { grown *= 2 }
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
        larger.copyMemory(from: base, byteCount: end)
        base.deallocate()
        base = larger
        capacity = grown
    }
}
