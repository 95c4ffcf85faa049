import Jansson

/// Reads the JSON text of a stored row in one pass, building only the values asked for: the stored
/// event (``StoredEvent``) reads its members straight into Swift values, with no jansson tree made,
/// walked and freed (jansson's parse was most of a fresh process's reading of an agenda's rows).
///
/// It takes the text as jansson does (RFC 8259; valid UTF-8; `\u0000` in strings but not in member
/// names; integers within 64 bits, reals within a double; at most ``JSONParser/maximumDepth`` nested
/// values; nothing but white space after the value). Text that is not JSON throws ``NotJSON``,
/// which names the byte offset and what was wrong, never the text. A value of the wrong kind is for
/// the caller to report: ``kindAhead`` names the kind of the next value without reading it.
///
/// - Important: Values of unknown members are skipped without recursion (``skipValue()``), so a
///   deeply nested one cannot exhaust a thread's stack; the reader's own recursion is as deep as the
///   caller's reading of known members.
struct StoredJSONReader {
    /// The text is not one JSON value.
    struct NotJSON: Error {
        var offset: Int
        var reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Containers open around the next value.
    private var depth = 0

    /// A reader at the first value of `bytes` (white space before it skipped).
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        skipSpace()
    }

    // MARK: Structure

    /// Reads an object, calling `member` with each member's name; `member` must read or skip its value.
    mutating func members(_ member: (inout StoredJSONReader, String) throws -> Void) throws {
        try open(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return close() }
        repeat {
            skipSpace()
            let name = try memberName()
            skipSpace()
            try member(&self, name)
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw notJSON("',' or '}' expected in an object") }
        close()
    }

    /// Reads an array, calling `element` with each element's index; `element` must read or skip it.
    mutating func elements(_ element: (inout StoredJSONReader, Int) throws -> Void) throws {
        try open(UInt8(ascii: "["))
        if take(UInt8(ascii: "]")) { return close() }
        var count = 0
        repeat {
            skipSpace()
            try element(&self, count)
            count += 1
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw notJSON("',' or ']' expected in an array") }
        close()
    }

    /// Checks that nothing but white space follows the value read.
    mutating func end() throws {
        skipSpace()
        guard index == bytes.count else { throw notJSON("the text goes on after its value") }
    }

    /// The kind of the next value, as an error names what it found: `"a string"`, `"null"`.
    var kindAhead: String {
        guard let next = peek else { return "nothing" }
        return switch next {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "a number"
        default: "no JSON value"
        }
    }

    /// Where the reader is, to come back to (``rewind(to:)``).
    struct Mark {
        fileprivate var index: Int
        fileprivate var depth: Int
    }

    var mark: Mark { Mark(index: index, depth: depth) }

    /// Goes back to `mark`, to read a value again (or skip it) after reading it failed.
    mutating func rewind(to mark: Mark) {
        index = mark.index
        depth = mark.depth
    }

    var isObjectAhead: Bool { peek == UInt8(ascii: "{") }
    var isArrayAhead: Bool { peek == UInt8(ascii: "[") }

    // MARK: Scalars

    /// Reads `null` when it comes next: true; else reads nothing.
    mutating func takeNull() throws -> Bool {
        guard peek == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// The next value when it is a string; `nil`, reading nothing, when it is of another kind.
    mutating func string() throws -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        return try string(isMemberName: false)
    }

    /// The next value when it is `true` or `false`; `nil`, reading nothing, otherwise.
    mutating func bool() throws -> Bool? {
        switch peek {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default:
            return nil
        }
    }

    /// The next value when it is an integer (no fraction or exponent); `nil`, reading nothing, when it
    /// is of another kind or a real.
    mutating func integer() throws -> Int64? {
        guard let first = peek, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        let start = index
        guard case .integer(let value) = try number() else {
            index = start
            return nil
        }
        return value
    }

    /// Skips the next value, checking it is JSON; containers are walked with a stack of their own.
    mutating func skipValue() throws {
        // For each open container, whether it is an object.
        var open: [Bool] = []
        valueDue: while true {
            skipSpace()
            if try skipScalarOrOpen(into: &open), let isObject = open.last {
                // Just opened: its end, or its first value.
                if !take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    if isObject { try memberName() }
                    continue valueDue
                }
                open.removeLast()
                close()
            }
            // A value ended: what follows it in its container.
            while let isObject = open.last {
                skipSpace()
                if take(UInt8(ascii: ",")) {
                    if isObject {
                        skipSpace()
                        try memberName()
                    }
                    continue valueDue
                }
                guard take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw notJSON(isObject ? "',' or '}' expected in an object" : "',' or ']' expected in an array")
                }
                open.removeLast()
                close()
            }
            return
        }
    }

    /// Reads a member's name and its ':'.
    @discardableResult
    private mutating func memberName() throws -> String {
        guard peek == UInt8(ascii: "\"") else { throw notJSON("a member name expected") }
        let name = try string(isMemberName: true)
        skipSpace()
        guard take(UInt8(ascii: ":")) else { throw notJSON("':' expected after a member name") }
        return name
    }

    /// Reads a scalar, or opens a container and pushes it onto `open` (true: its first value or its end
    /// comes next).
    private mutating func skipScalarOrOpen(into open: inout [Bool]) throws -> Bool {
        try checkDepth()
        guard let next = peek else { throw notJSON("a value expected, the text ended") }
        switch next {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            open.append(next == UInt8(ascii: "{"))
            try self.open(next)
            return true
        case UInt8(ascii: "\""):
            _ = try string(isMemberName: false)
        case UInt8(ascii: "t"):
            try literal("true")
        case UInt8(ascii: "f"):
            try literal("false")
        case UInt8(ascii: "n"):
            try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try number()
        default:
            throw notJSON("a value expected")
        }
        return false
    }

    // MARK: Tokens

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// A value inside `depth` containers is nested `depth + 1` deep, as jansson counts (a scalar alone is 1).
    private func checkDepth() throws {
        guard depth + 1 <= JSONParser.maximumDepth else { throw notJSON("nested deeper than \(JSONParser.maximumDepth) values") }
    }

    private mutating func open(_ bracket: UInt8) throws {
        try checkDepth()
        guard take(bracket) else { throw notJSON("'\(UnicodeScalar(bracket))' expected") }
        depth += 1
        skipSpace()
    }

    private mutating func close() {
        depth -= 1
    }

    private mutating func literal(_ word: StaticString) throws {
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= letters.count, letters.indices.allSatisfy({ bytes[index + $0] == letters[$0] }) else {
            throw notJSON("'\(word)' expected")
        }
        index += letters.count
    }

    private enum Number {
        case integer(Int64)
        case real
    }

    /// A number token: an integer that fits 64 bits, or a real that fits a double.
    private mutating func number() throws -> Number {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            guard skipDigits() == 0 else { throw notJSON("a number starts with 0") }
        } else {
            guard skipDigits() > 0 else { throw notJSON("a digit expected") }
        }
        var isInteger = true
        if take(UInt8(ascii: ".")) {
            isInteger = false
            guard skipDigits() > 0 else { throw notJSON("a digit expected after '.'") }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            isInteger = false
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard skipDigits() > 0 else { throw notJSON("a digit expected in an exponent") }
        }
        let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger {
            guard let value = Self.integer(token) else { throw notJSON("an integer beyond 64 bits") }
            return .integer(value)
        }
        guard let value = Double(String(decoding: token, as: UTF8.self)), value.isFinite else { throw notJSON("a real beyond a double") }
        return .real
    }

    /// Skips digits, returning how many.
    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// The value of an integer token (`-?[0-9]+`), or `nil` past 64 bits.
    private static func integer(_ token: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = token.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for digit in token.dropFirst(negative ? 1 : 0) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAgain) = negative ? times.subtractingReportingOverflow(Int64(digit - 48))
                                                 : times.addingReportingOverflow(Int64(digit - 48))
            guard !overflow, !overflowAgain else { return nil }
            value = next
        }
        return value
    }

    /// A string token from its opening quote; a member name may not hold U+0000 (jansson refuses it).
    private mutating func string(isMemberName: Bool) throws -> String {
        index += 1
        let start = index
        var highBits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let value = Self.string(text, ascii: highBits & 0x80 == 0) else { throw notJSON("a string is not UTF-8") }
                return value
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start, isMemberName: isMemberName) }
            guard byte >= 0x20 else { throw notJSON("a control character in a string") }
            highBits |= byte
            index += 1
        }
        throw notJSON("a string is not closed")
    }

    /// `text` as a string, or `nil` when it is not UTF-8. `ascii` says no byte has its high bit set:
    /// such text is valid as it is, and skips the validation `String(validating:as:)` does through a
    /// generic path (two thirds of reading a fresh process's stored events went there).
    private static func string(_ text: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
    }

    /// The rest of a string token holding escapes, `index` at the first; `start` is just after its quote.
    private mutating func escapedString(from start: Int, isMemberName: Bool) throws -> String {
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let value = text.withUnsafeBufferPointer({ Self.string($0, ascii: false) }) else {
                    throw notJSON("a string is not UTF-8")
                }
                return value
            case UInt8(ascii: "\\"):
                guard let escape = peek else { throw notJSON("a string is not closed") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try unicodeEscape()
                    if scalar.value == 0, isMemberName { throw notJSON("a member name holds \\u0000") }
                    Unicode.UTF8.encode(scalar) { text.append($0) }
                default:
                    throw notJSON("an unknown escape in a string")
                }
            default:
                guard byte >= 0x20 else { throw notJSON("a control character in a string") }
                text.append(byte)
            }
        }
        throw notJSON("a string is not closed")
    }

    /// The scalar of `\uXXXX` (after the `u`), with the low half of a surrogate pair when it is the high.
    private mutating func unicodeEscape() throws -> Unicode.Scalar {
        let unit = try hex4()
        switch unit {
        case 0xD800...0xDBFF:
            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw notJSON("a lone surrogate in a string") }
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low),
                  let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else {
                throw notJSON("a lone surrogate in a string")
            }
            return scalar
        case 0xDC00...0xDFFF:
            throw notJSON("a lone surrogate in a string")
        default:
            guard let scalar = Unicode.Scalar(unit) else { throw notJSON("a lone surrogate in a string") }
            return scalar
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard let value = LoneSurrogateEscapes.hex4(UnsafeRawBufferPointer(bytes), at: index) else {
            throw notJSON("four hex digits expected after \\u")
        }
        index += 4
        return value
    }

    private func notJSON(_ reason: String) -> NotJSON {
        NotJSON(offset: index, reason: reason)
    }
}
