import CJansson

/// Parses JSON text with jansson.
///
/// Accepts any JSON value at the top level, keeps `\u0000` inside strings, rejects invalid UTF-8 and
/// trailing garbage, and keeps object members in the order received.
public enum JSONParser {
    /// The deepest nesting jansson parses: a limit compiled into the library (`JSON_PARSER_MAX_DEPTH`).
    public static let maximumDepth = Int(JSON_PARSER_MAX_DEPTH)

    /// Parses one complete JSON text.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JanssonValue {
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer(bitPattern: 1)!
        guard let root = json_loadb(base, bytes.count, flags, &error) else {
            throw JSONParseError(error)
        }
        return JanssonValue(taking: root)
    }

    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JanssonValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(buffer)) }
        } ?? Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer) }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JanssonValue {
        try parse(Array(text.utf8))
    }
}

/// Why a text is not JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// jansson's description, e.g. `'[' or '{' expected near 'x'`.
    public var reason: String
    public var line: Int
    public var column: Int
    /// Byte offset into the text.
    public var offset: Int

    /// What kind of failure, from jansson's error code.
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        /// Not JSON: bad syntax, invalid UTF-8, a premature end.
        case invalid
        /// Deeper than jansson parses (``JSONParser/maximumDepth``).
        case tooDeep
        /// Valid JSON with a number jansson cannot hold: an integer beyond 64 bits, a real beyond a double.
        case numberOutOfRange
        /// Valid JSON with `\u0000` in a member name, which jansson cannot hold.
        case nulInMemberName
    }

    public init(reason: String, line: Int, column: Int, offset: Int, kind: Kind = .invalid) {
        self.reason = reason
        self.line = line
        self.column = column
        self.offset = offset
        self.kind = kind
    }

    init(_ error: json_error_t) {
        var error = error
        let reason = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let kind: Kind = switch json_error_code(&error) {
        case json_error_stack_overflow: .tooDeep
        case json_error_numeric_overflow: .numberOutOfRange
        case json_error_null_byte_in_key: .nulInMemberName
        default: .invalid
        }
        self.init(reason: reason, line: Int(error.line), column: Int(error.column), offset: Int(error.position), kind: kind)
    }

    public var description: String { "\(reason) at line \(line), column \(column)" }

    /// True when the text nests deeper than jansson parses (``JSONParser/maximumDepth``).
    public var isDepthLimit: Bool { kind == .tooDeep }

    /// True when the text may be valid JSON that jansson cannot hold (see ``JSONScanner``).
    public var mayBeValidJSON: Bool { kind == .numberOutOfRange || kind == .nulInMemberName }
}
