/// Reading a message from its ends: what its first bytes say, and an `id` member that closes it.
///
/// For a message refused unread (too long to keep, or holding too many values), whose request still
/// deserves its own id in the answer. Both read a bounded number of bytes, never the whole text.
extension JSONScanner {
    /// What the first bytes of a text say about it, when they are the start of one JSON object.
    public struct Head: Sendable, Equatable {
        /// The top-level object's members read in full (``Message/id``, ``Message/method``, …); a
        /// member whose value the bytes end inside is not among them. `range` ends where the bytes do
        /// unless the object is complete.
        public var message: Message
        /// The object closes within the bytes (and only whitespace follows it).
        public var isComplete: Bool
        /// A top-level `method` member begins within the bytes (its value may be cut off): the
        /// message is a request, a notification or invalid, never an answer.
        public var namesMethod: Bool
    }

    /// Reads `bytes` as the first bytes of a longer JSON text; `nil` unless they are the start of one
    /// object (not an array: a batch), valid as far as they go and nested at most `maxDepth` values.
    ///
    /// Running out of bytes anywhere, even inside a token, is no fault: the members read in full
    /// before that are reported. A number that ends with the bytes is not read as complete (`12` may
    /// be the start of `123`). The work is linear in `bytes.count`.
    public static func scanHead(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.maximumDepth) -> Head? {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth, reading: .head)
        if let scan = reader.run() {
            guard !scan.isArray, let message = scan.messages.first, message.isObject else { return nil }
            return Head(message: message, isComplete: true, namesMethod: reader.namesMethod)
        }
        guard reader.ranOut, !reader.scan.isArray, let message = reader.message, message.isObject else { return nil }
        var partial = message
        partial.range = message.range.lowerBound..<bytes.count
        return Head(message: partial, isComplete: false, namesMethod: reader.namesMethod)
    }

    /// The value of an `"id"` member that ends `bytes` and closes the object, read backwards:
    /// `…,"id":5}` or `…{"id":"abc"}`, with whitespace anywhere between tokens. The value is a number
    /// or a string without escapes (a backslash in it: `nil`); the member's name is `"id"` exactly.
    ///
    /// - Important: `bytes` are the last bytes of a text whose start is elsewhere, so the match relies
    ///   on the whole text being valid JSON whose top-level value is an object (check the start with
    ///   ``scanHead(_:maxDepth:)``). Then it cannot be fooled: the final `}` closes the top-level
    ///   object, the scalar just before it is that object's last member's value (a string would have
    ///   to close before the `}`; a nested object or array would end in `}` or `]`), and a `"` after
    ///   `,` or `{` cannot be escaped, so the name is `id` and not the end of a longer one (`"x\"id"`).
    ///   An `"id"` inside `params` ends in `}}`; one inside a string value ends in `"}`.
    public static func trailingID(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        var cursor = BackwardCursor(bytes: bytes)
        guard cursor.take(UInt8(ascii: "}")) else { return nil }
        cursor.skipSpace()
        let valueEnd = cursor.position
        guard let valueStart = cursor.takeSimpleScalar() else { return nil }
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: ":")) else { return nil }
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: "\"")), cursor.take(UInt8(ascii: "d")), cursor.take(UInt8(ascii: "i")),
              cursor.take(UInt8(ascii: "\"")) else { return nil }
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: ",")) || cursor.take(UInt8(ascii: "{")) else { return nil }
        return valueStart..<valueEnd
    }

    /// Reads `bytes` backwards from the end; never reads outside them.
    private struct BackwardCursor {
        let bytes: UnsafeRawBufferPointer
        /// The bytes before this one are still to be read.
        var position: Int

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            position = bytes.count
            skipSpace()
        }

        private var previous: UInt8? { position > 0 ? bytes[position - 1] : nil }

        mutating func skipSpace() {
            while let byte = previous, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position -= 1 }
        }

        /// Steps back over `byte` if it is the previous one.
        mutating func take(_ byte: UInt8) -> Bool {
            guard previous == byte else { return false }
            position -= 1
            return true
        }

        /// Steps back over a number, or a string holding no backslash or control byte; returns its start.
        mutating func takeSimpleScalar() -> Int? {
            let end = position
            if take(UInt8(ascii: "\"")) {
                while let byte = previous, byte != UInt8(ascii: "\"") {
                    guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
                    position -= 1
                }
                // The opening quote; whether it is one (not escaped) the member's name, read next, tells.
                return take(UInt8(ascii: "\"")) ? position : nil
            }
            while let byte = previous, Self.isNumberByte(byte) { position -= 1 }
            let token = UnsafeRawBufferPointer(rebasing: bytes[position..<end])
            guard !token.isEmpty, let scan = JSONScanner.scan(token), !scan.isArray,
                  scan.messages.first?.isObject == false, scan.unholdable.isEmpty else { return nil }
            return position
        }

        private static func isNumberByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"): true
            default: false
            }
        }
    }
}
