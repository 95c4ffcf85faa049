@testable import PluginHost
import PropertyBased
import Testing

/// `OpenLine` follows a plugin's stdout however the reads split it: the open line is what follows the
/// last newline, and the plugin is over the limit exactly when that is longer than a message (plus a CR).
@Suite("The open line of a plugin's output, any chunking")
struct OpenLinePropertyTests {
    /// Bytes that are mostly text with some newlines, cut at random places.
    static let chunks = Gen.int(in: 0...9).map { $0 == 0 ? UInt8(0x0A) : UInt8(ascii: "x") }.array(of: 0...40).array(of: 0...8)

    @Test("after any chunks, the length is the bytes since the last newline, and over the limit means longer than limit + 1")
    func followsTheLastNewline() async {
        await propertyCheck(count: 2_000, input: Self.chunks, Gen.int(in: 0...30)) { chunks, limit in
            var line = OpenLine(limit: limit)
            var over = false
            for chunk in chunks { over = line.grows(by: chunk[...]) }
            let stream = chunks.flatMap { $0 }
            let expected = stream.count - ((stream.lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0)
            #expect(line.length == expected)
            if !chunks.isEmpty { #expect(over == (expected > limit + 1)) }
        }
    }
}
