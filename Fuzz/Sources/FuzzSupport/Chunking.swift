/// Cuts an input into chunks of pseudo-random sizes (1 to 16 bytes, or the rest), so that a streaming
/// parser sees every split point: the sizes come from a seed the fuzzer controls.
public struct Chunking: Sequence, IteratorProtocol {
    private var state: UInt64
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8], seed: UInt8) {
        self.bytes = bytes
        self.state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    public mutating func next() -> ArraySlice<UInt8>? {
        guard offset < bytes.count else { return nil }
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let size = state % 8 == 0 ? bytes.count - offset : Int(state % 16) + 1
        let end = Swift.min(bytes.count, offset + size)
        defer { offset = end }
        return bytes[offset..<end]
    }
}
