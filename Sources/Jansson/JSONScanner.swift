#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict reader of JSON text that builds nothing: it checks the text as jansson reads it (RFC 8259,
/// any top-level value, `\u0000` allowed in strings, valid UTF-8, at most ``JSONParser/maximumDepth``
/// nested values) and reports what jansson cannot say when it refuses valid JSON: which tokens it
/// cannot hold (integers beyond 64 bits, reals beyond a double, member names with `\u0000`, strings
/// with a lone UTF-16 surrogate escape, which jansson refuses as invalid) and where the `id`, `method`
/// and `params` of each message are.
///
/// It is the slow path for the rare message jansson refuses or whose id is a real; the wire path
/// stays jansson's.
public enum JSONScanner {
    /// One step of a path from the root: a member name or an array index.
    public enum PathComponent: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// A valid token jansson cannot hold.
    public struct Unholdable: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case integerBeyond64Bits, realBeyondDouble, nulInMemberName
            /// A string, or a member name, with a `\uD800`–`\uDFFF` escape that is not half of a pair
            /// (``LoneSurrogateEscapes``).
            case loneSurrogate, loneSurrogateInMemberName
        }

        public var kind: Kind
        /// The number token, or the member name's string token.
        public var range: Range<Int>
        /// From the root to the value (for a member name, to the member).
        public var path: [PathComponent]
    }

    /// A message of the text: the top-level value, or each element of a top-level array (a batch).
    public struct Message: Sendable, Equatable {
        public var range: Range<Int>
        public var isObject: Bool
        /// The value of its `id` member, of `method` and of `params`; the last of duplicates, as jansson keeps.
        public var id: Range<Int>?
        public var method: Range<Int>?
        public var params: Range<Int>?
        /// The value of its `result` member and of `error` (a response), likewise.
        public var result: Range<Int>?
        public var error: Range<Int>?
    }

    public struct Scan: Sendable, Equatable {
        /// The top-level value is an array: each element is a message.
        public var isArray: Bool
        public var messages: [Message]
        public var unholdable: [Unholdable]
        /// The deepest nesting of values, counted as jansson counts it: a scalar alone is 1, `[1]` is 2.
        public var depth: Int
    }

    /// Scans `bytes`; `nil` when they are not one JSON text, or nest deeper than `maxDepth` values.
    public static func scan(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.maximumDepth) -> Scan? {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        return reader.run()
    }

    public static func scan(_ bytes: [UInt8], maxDepth: Int = JSONParser.maximumDepth) -> Scan? {
        bytes.withUnsafeBytes { scan($0, maxDepth: maxDepth) }
    }

    /// The string a string token stands for (escapes decoded, a lone surrogate escape read as U+FFFD);
    /// `nil` if `range` is not one.
    public static func decodeString(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, range.lowerBound <= range.upperBound else { return nil }
        let token = UnsafeRawBufferPointer(rebasing: bytes[range])
        let value = (try? JSONParser.parse(token))
            ?? LoneSurrogateEscapes.replacedByReplacementCharacter(token).flatMap { try? JSONParser.parse($0.text) }
        guard let value else { return nil }
        return withExtendedLifetime(value) { value.view.string }
    }
}

extension JSONScanner {
    struct Frame {
        var isObject: Bool
        /// The name token of the member being read (objects).
        var key: Range<Int>?
        /// The element being read (arrays).
        var index = 0
    }

    enum Step { case value, key, afterValue }

    /// How the text is read: whole (any fault fails the scan), or as the first bytes of a longer
    /// text (``JSONScanner/scanHead(_:maxDepth:)``), where running out of bytes inside a token is no fault
    /// and a number that ends with the bytes is not read as complete (more digits may follow).
    enum Reading { case whole, head }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        let maxDepth: Int
        let reading: Reading
        var index = 0
        var stack: [Frame] = []
        var scan = Scan(isArray: false, messages: [], unholdable: [], depth: 0)
        /// The message being read, and the start of the member value being read inside it.
        var message: Message?
        var memberStart = 0
        /// Nesting at which messages sit: 1 inside a batch, else 0.
        var messageLevel = 0
        /// Head reading: a message's `method` member has begun (its value may be cut off).
        var namesMethod = false

        init(bytes: UnsafeRawBufferPointer, maxDepth: Int, reading: Reading = .whole) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.reading = reading
        }

        /// After `run()` failed: whether it stopped because the bytes ran out (inside a token or
        /// between them), not at a fault in them. A head read that ran out is a prefix of valid JSON.
        var ranOut: Bool { index >= bytes.count }

        mutating func run() -> Scan? {
            skipSpace()
            guard index < bytes.count else { return nil }
            scan.isArray = bytes[index] == UInt8(ascii: "[")
            messageLevel = scan.isArray ? 1 : 0
            var step = Step.value
            while true {
                switch step {
                case .value:
                    guard index < bytes.count, stack.count + 1 <= maxDepth else { return nil }
                    scan.depth = max(scan.depth, stack.count + 1)
                    valueStarts()
                    switch bytes[index] {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        let isObject = bytes[index] == UInt8(ascii: "{")
                        stack.append(Frame(isObject: isObject))
                        index += 1
                        skipSpace()
                        if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                            index += 1
                            stack.removeLast()
                            valueEnds()
                            step = .afterValue
                        } else {
                            step = isObject ? .key : .value
                        }
                    case UInt8(ascii: "\""):
                        let start = index
                        guard let string = scanString() else { return nil }
                        if string.hasLoneSurrogate {
                            scan.unholdable.append(Unholdable(kind: .loneSurrogate, range: start..<index, path: path()))
                        }
                        valueEnds()
                        step = .afterValue
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        guard scanNumber() else { return nil }
                        // The first bytes of a longer text: `12` may be the start of `123`.
                        if reading == .head && index == bytes.count { return nil }
                        valueEnds()
                        skipNulAfterBareToken()
                        step = .afterValue
                    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                        guard literal("true") || literal("false") || literal("null") else {
                            if (["true", "false", "null"] as [StaticString]).contains(where: isCut) { index = bytes.count }
                            return nil
                        }
                        valueEnds()
                        skipNulAfterBareToken()
                        step = .afterValue
                    default: return nil
                    }
                case .key:
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
                    let start = index
                    guard let name = scanString() else { return nil }
                    stack[stack.count - 1].key = start..<index
                    if name.hasNul { scan.unholdable.append(Unholdable(kind: .nulInMemberName, range: start..<index, path: path())) }
                    if name.hasLoneSurrogate {
                        scan.unholdable.append(Unholdable(kind: .loneSurrogateInMemberName, range: start..<index, path: path()))
                    }
                    if reading == .head, inMessageObject, isName(start..<index, "method") { namesMethod = true }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    skipSpace()
                    step = .value
                case .afterValue:
                    skipSpace()
                    guard let top = stack.last else { return index == bytes.count ? scan : nil }
                    guard index < bytes.count else { return nil }
                    switch bytes[index] {
                    case UInt8(ascii: ","):
                        index += 1
                        skipSpace()
                        if top.isObject {
                            step = .key
                        } else {
                            stack[stack.count - 1].index += 1
                            step = .value
                        }
                    case UInt8(ascii: "}") where top.isObject, UInt8(ascii: "]") where !top.isObject:
                        index += 1
                        stack.removeLast()
                        valueEnds()
                    default:
                        return nil
                    }
                }
            }
        }

        // MARK: Messages and their members

        var inMessageObject: Bool { stack.count == messageLevel + 1 && message?.isObject == true }

        private mutating func valueStarts() {
            if stack.count == messageLevel {
                message = Message(range: index..<index, isObject: bytes[index] == UInt8(ascii: "{"))
            } else if inMessageObject {
                memberStart = index
            }
        }

        private mutating func valueEnds() {
            if stack.count == messageLevel, var finished = message {
                finished.range = finished.range.lowerBound..<index
                scan.messages.append(finished)
                message = nil
            } else if inMessageObject, let key = stack.last?.key {
                if isName(key, "id") { message?.id = memberStart..<index }
                if isName(key, "params") { message?.params = memberStart..<index }
                if isName(key, "method") { message?.method = memberStart..<index }
                if isName(key, "result") { message?.result = memberStart..<index }
                if isName(key, "error") { message?.error = memberStart..<index }
            }
        }

        /// Whether the name token at `range` reads `name` (escapes decoded).
        private func isName(_ range: Range<Int>, _ name: StaticString) -> Bool {
            let inner = UnsafeRawBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
            let plain = name.withUTF8Buffer { inner.elementsEqual($0) }
            guard !plain, inner.contains(UInt8(ascii: "\\")) else { return plain }
            return JSONScanner.decodeString(bytes, range) == name.description
        }

        private func path() -> [PathComponent] {
            stack.map { frame in
                if frame.isObject, let key = frame.key {
                    return .key(JSONScanner.decodeString(bytes, key) ?? "")
                }
                return .index(frame.index)
            }
        }

        // MARK: Tokens

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// jansson reads one byte past a number or `true`/`false`/`null` and, when it is NUL, does not
        /// put it back: it is skipped (`[1\0]` parses). Done alike, to agree with it.
        private mutating func skipNulAfterBareToken() {
            if index < bytes.count, bytes[index] == 0 { index += 1 }
        }

        /// Whether the bytes from `index` to the end are a proper start of `word`: a token cut off.
        private func isCut(_ word: StaticString) -> Bool {
            let rest = bytes.count - index
            return word.withUTF8Buffer { word in rest < word.count && bytes[index...].elementsEqual(word.prefix(rest)) }
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let matches = word.withUTF8Buffer { word in
                index + word.count <= bytes.count && bytes[index..<(index + word.count)].elementsEqual(word)
            }
            if matches { index += word.utf8CodeUnitCount }
            return matches
        }

        private func isDigit(_ position: Int) -> Bool {
            position < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, then whether jansson can hold it.
        private mutating func scanNumber() -> Bool {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while isDigit(index) { index += 1 }
            }
            var isReal = false
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard isDigit(index) else { return false }
                while isDigit(index) { index += 1 }
                isReal = true
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard isDigit(index) else { return false }
                while isDigit(index) { index += 1 }
                isReal = true
            }
            let token = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            let holdable = isReal ? JSONNumberText.realFitsDouble(token) : JSONNumberText.integerFits64Bits(token)
            if !holdable {
                scan.unholdable.append(Unholdable(kind: isReal ? .realBeyondDouble : .integerBeyond64Bits, range: start..<index, path: path()))
            }
            return true
        }

        /// Reads a string token; returns whether it holds `\u0000` and a lone surrogate escape, or `nil`
        /// when it is not valid.
        private mutating func scanString() -> (hasNul: Bool, hasLoneSurrogate: Bool)? {
            index += 1
            var hasNul = false
            var hasLoneSurrogate = false
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return (hasNul, hasLoneSurrogate)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { return nil }
                    switch bytes[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        guard let unit = hex4(at: index + 1) else {
                            if isCutHex(at: index + 1) { index = bytes.count }
                            return nil
                        }
                        index += 5
                        if unit == 0 { hasNul = true }
                        if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                           bytes[index + 1] == UInt8(ascii: "u"), let low = hex4(at: index + 2), (0xDC00...0xDFFF).contains(low) {
                            index += 6
                        } else if (0xD800...0xDFFF).contains(unit) {
                            // Grammatical, but no character: jansson refuses it (a following `\u` is read on its own).
                            hasLoneSurrogate = true
                        }
                    default:
                        return nil
                    }
                case 0x00...0x1F:
                    return nil
                case 0x20...0x7F:
                    index += 1
                default:
                    guard let length = utf8Length(at: index) else {
                        if isCutUTF8(at: index) { index = bytes.count }
                        return nil
                    }
                    index += length
                }
            }
            return nil
        }

        private func hex4(at position: Int) -> UInt32? {
            LoneSurrogateEscapes.hex4(bytes, at: position)
        }

        /// Whether fewer than four bytes are left at `position`, all hex digits: a `\u` escape cut off.
        private func isCutHex(at position: Int) -> Bool {
            position <= bytes.count && bytes.count - position < 4 && bytes[position...].allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
            }
        }

        /// Whether the bytes from `position` to the end are a proper start of a well-formed UTF-8
        /// sequence: a character cut off.
        private func isCutUTF8(at position: Int) -> Bool {
            let rest = bytes.count - position
            guard rest > 0, rest < 4 else { return false }
            // Pad with the smallest continuation bytes the first byte allows, and check the whole.
            var padded = Array(bytes[position...])
            let secondMinimum: UInt8 = switch bytes[position] {
            case 0xE0: 0xA0
            case 0xF0: 0x90
            default: 0x80
            }
            while padded.count < 4 { padded.append(padded.count == 1 ? secondMinimum : 0x80) }
            return padded.withUnsafeBytes { padded in
                let reader = Reader(bytes: padded, maxDepth: maxDepth)
                return reader.utf8Length(at: 0).map { $0 > rest } ?? false
            }
        }

        /// The length of the well-formed UTF-8 sequence at `position` (no overlongs, no surrogates,
        /// nothing past U+10FFFF), or `nil`.
        func utf8Length(at position: Int) -> Int? {
            let first = bytes[position]
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch first {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; secondRange = 0x80...0x9F
            case 0xF0: length = 4; secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; secondRange = 0x80...0x8F
            default: return nil
            }
            guard position + length <= bytes.count, secondRange.contains(bytes[position + 1]) else { return nil }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[position + offset]) { return nil }
            return length
        }
    }
}
