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
    /// The failure in a few words of our own (`invalid syntax`, `premature end of input`), quoting
    /// nothing of the text, unlike ``reason``.
    public var problem: String

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

    public init(reason: String, line: Int, column: Int, offset: Int, kind: Kind = .invalid, problem: String? = nil) {
        self.reason = reason
        self.line = line
        self.column = column
        self.offset = offset
        self.kind = kind
        let byKind = switch kind {
        case .invalid: "invalid JSON"
        case .tooDeep: "nested too deeply"
        case .numberOutOfRange: "a number out of range"
        case .nulInMemberName: "\\u0000 in a member name"
        }
        self.problem = problem ?? byKind
    }

    init(_ error: json_error_t) {
        var error = error
        let reason = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let code = json_error_code(&error)
        let kind: Kind = switch code {
        case json_error_stack_overflow: .tooDeep
        case json_error_numeric_overflow: .numberOutOfRange
        case json_error_null_byte_in_key: .nulInMemberName
        default: .invalid
        }
        let problem: String? = switch code {
        case json_error_invalid_utf8: "invalid UTF-8"
        case json_error_premature_end_of_input: "premature end of input"
        case json_error_end_of_input_expected: "text after the JSON value"
        case json_error_invalid_syntax: "invalid syntax"
        case json_error_out_of_memory: "out of memory"
        default: nil
        }
        self.init(reason: reason, line: Int(error.line), column: Int(error.column), offset: Int(error.position), kind: kind,
                  problem: problem)
    }

    /// jansson's reason, which quotes the text near the error: for a client's own message only.
    public var description: String { "\(reason) at line \(line), column \(column)" }

    /// The kind of failure and where, quoting none of the text: what an error about a file's content says.
    public var descriptionWithoutText: String { "\(problem) at line \(line), column \(column)" }

    /// True when the text nests deeper than jansson parses (``JSONParser/maximumDepth``).
    public var isDepthLimit: Bool { kind == .tooDeep }

    /// True when the text may be valid JSON that jansson cannot hold (see ``JSONScanner``).
    public var mayBeValidJSON: Bool { kind == .numberOutOfRange || kind == .nulInMemberName }
}
