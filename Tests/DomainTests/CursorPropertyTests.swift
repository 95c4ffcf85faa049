import Jansson
import PropertyBased
import SwitchboardCore
import Testing

/// `Cursor.decode` on any text (issue 6, points 1 and 14): a cursor of this list, or `-32602` naming
/// `cursor` and quoting at most a short excerpt.
@Suite("Cursors, any input")
struct CursorPropertyTests {
    static let list = "inbox/ada@example.com/Inbox/all"

    /// Decodes, and checks that a refusal is the documented one, briefly quoted.
    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Cursor? {
        do {
            return try Cursor.decode(text, list: list)
        } catch {
            #expect(error.field == "cursor", sourceLocation: sourceLocation)
            #expect(error.got.unicodeScalars.count <= 140, "\(error.got)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static let base64Pieces = ["A", "Q", "g", "w", "z", "0", "9", "-", "_", "=", "+", "/", "AA", "AAA", "____", " ", "\u{0}", "é"]

    @Test("random text, base64 or not, decodes to a cursor or the cursor error")
    func randomText() async {
        await propertyCheck(count: 3_000, input: PropertyInputs.text(Self.base64Pieces, count: 0...60)) { text in
            _ = Self.check(text)
        }
    }

    @Test("random bytes, base64url-encoded, decode to a cursor or the cursor error")
    func randomBytes() async {
        await propertyCheck(count: 3_000, input: Gen.uint8(in: 0...255).array(of: 0...80)) { bytes in
            _ = Self.check(Base64URLText.encode(bytes))
        }
    }

    @Test("every truncation and every one-character edit of a valid cursor is refused or reads back the same")
    func truncationsAndEdits() async {
        let cursor = Cursor(list: Self.list, sortKey: "1767258000000", id: "m000124")
        let text = cursor.encoded
        #expect(Self.check(text) == cursor)
        for length in 0..<text.count {
            #expect(Self.check(String(text.prefix(length))) == nil, "truncated to \(length)")
        }
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...(text.count - 1)), Gen.uint8(in: 0...127)) { position, byte in
            var bytes = Array(text.utf8)
            bytes[position] = byte
            let edited = String(decoding: bytes, as: UTF8.self)
            if let decoded = Self.check(edited) { #expect(decoded == cursor, "\(edited) decoded as another cursor") }
        }
    }

    @Test("every cursor made reads back the same, whatever its parts hold (the separator U+001F, the escape U+001B) but NUL")
    func anyPartsReadBack() async {
        let pieces = ["a", "\u{1F}", "\u{1B}", "1", "0", "é", "/", " "]
        await propertyCheck(count: 2_000, input: PropertyInputs.text(pieces, count: 0...12), PropertyInputs.text(pieces, count: 0...12)) { key, id in
            guard !(key + id).unicodeScalars.contains("\u{0}") else { return }
            let list = "tools/list\u{1F}\u{1B}"
            let cursor = Cursor(list: list, sortKey: key, id: id)
            #expect((try? Cursor.decode(cursor.encoded, list: list)) == cursor)
        }
        // Parts without them are encoded as before: cursors handed out by an earlier version stay valid.
        #expect(Cursor(list: "feed", sortKey: "", id: "17").encoded == "ZmVlZB8fMTcfYjZkNDRmOTM")
    }

    @Test("a cursor of another list is refused naming cursor")
    func otherList() throws {
        let other = Cursor(list: "feed", sortKey: "", id: "17").encoded
        #expect(throws: JSONFieldError.self) { try Cursor.decode(other, list: Self.list) }
        #expect(Self.check(other) == nil)
    }

    @Test("parts holding U+0000 are refused, so an id never matches a prefix of itself")
    func nulInParts() {
        #expect(Self.check(Cursor(list: Self.list, sortKey: "1", id: "m000124\u{0}zzz").encoded) == nil)
    }

    @Test("an 8 MB cursor is refused with an error of a few hundred bytes")
    func hugeCursor() {
        let huge = String(repeating: "A", count: 8 << 20)
        do {
            _ = try Cursor.decode(huge, list: Self.list)
            Issue.record("decoded")
        } catch {
            #expect(error.field == "cursor")
            #expect(error.description.utf8.count < 400, "\(error.description.prefix(500))")
            #expect(error.got.hasSuffix("(8388608 bytes)"))
        }
    }
}

/// Base64url without padding, written independently of the code under test.
enum Base64URLText {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var bits = 0, value = 0, text = ""
        for byte in bytes {
            value = value << 8 | Int(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                text.append(alphabet[(value >> bits) & 63])
            }
        }
        if bits > 0 { text.append(alphabet[(value << (6 - bits)) & 63]) }
        return text
    }
}
