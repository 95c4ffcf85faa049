import CJansson

/// Decodes `Decodable` values straight from jansson values: no intermediate text, no Foundation.
///
/// The rules are strict, because params come from other programs and a wrong type is a bug to report:
///
/// - A JSON string is not a number, nor a number a string; a real (`5.0`) is not an integer. An integer
///   is accepted where a `Double` or `Float` is expected.
/// - Every fixed-width integer type is range-checked (`UInt8` expects `"integer 0...255"`).
/// - An `Optional` is `nil` when its member is missing or `null`.
/// - Members the type does not know are ignored, unless ``unknownMembers`` is `.reject`: then a member
///   of any object that the type never asked for is an error naming it (``acceptedTopLevelMembers``
///   aside, e.g. `_meta`).
/// - With ``rejectsNUL``, a `String` holding `U+0000` is an error naming its member.
/// - `JSONValue` is copied from the jansson value directly, keeping member order and integer-vs-real.
/// - A `String`-backed `CaseIterable` enum given anything else expects `one of "a", "b"`.
///
/// Every failure is a ``JSONFieldError`` naming the member's path. A `DecodingError` (or any other
/// error) thrown by a custom `init(from:)` becomes one too: `field` is its coding path, `expected` the
/// error's description, so phrase `dataCorrupted` descriptions as what was expected
/// (`"a date such as 2024-05-01"`).
///
/// - Note: Containers handed to a custom `init(from:)` throw ``JSONFieldError``, not `DecodingError`.
public struct JanssonDecoder: Sendable {
    /// What happens to members of an object that the type being decoded never asks for.
    public enum UnknownMembers: Sendable {
        /// They are skipped.
        case ignore
        /// The first one is a ``JSONFieldError`` naming it, once decoding is otherwise done.
        case reject
    }

    /// Handed to `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    public var unknownMembers = UnknownMembers.ignore
    /// Members of the top-level object accepted though never asked for, with `.reject`: `["_meta"]`.
    public var acceptedTopLevelMembers: [String] = []
    /// When true, a `String` holding `U+0000` is refused: such text would be cut where C and SQLite see it.
    public var rejectsNUL = false

    public init() {}

    /// Decodes `type` from `value`, which must stay alive (its owner held) for the call.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONView) throws(JSONFieldError) -> T {
        let tracker = unknownMembers == .reject ? JanssonMemberTracker(acceptedAtTop: acceptedTopLevelMembers) : nil
        let decoder = JanssonDecoderImpl(value: value, root: value, path: [], userInfo: userInfo,
                                         tracker: tracker, rejectsNUL: rejectsNUL)
        let result = try decoder.unbox(T.self)
        try tracker?.check()
        return result
    }
}

/// The `Decoder`: one object serves a whole decode, its coding path used as a stack.
///
/// Containers remember how deep the path was when they were made (`base`); decoding a child sets the
/// path to `base + key` and back, so containers copy no path and allocate nothing on the way down.
/// A nested container gets a decoder of its own, whose path ends in the nested container's key.
final class JanssonDecoderImpl: Decoder {
    // Exclusivity is not checked on the hot properties: they change only in `decode(_:from:base:key:)`,
    // strictly nested, and the checks would be a good part of the cost of decoding a small struct.

    /// The value being decoded; `nil` when the member is missing.
    @exclusivity(unchecked) var value: JSONView?
    @exclusivity(unchecked) var path: [any CodingKey]
    /// The value the decode started from, to report what a `DecodingError`'s path points at.
    let root: JSONView
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    /// Records the members asked for, when unknown members are refused; shared with sub-decoders.
    let tracker: JanssonMemberTracker?
    let rejectsNUL: Bool

    init(value: JSONView?, root: JSONView, path: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable],
         tracker: JanssonMemberTracker?, rejectsNUL: Bool) {
        self.value = value
        self.root = root
        self.path = path
        self.sendableUserInfo = userInfo
        self.tracker = tracker
        self.rejectsNUL = rejectsNUL
    }

    /// A decoder for a nested container or `superDecoder`, at `path`.
    func subDecoder(for value: JSONView?, at path: [any CodingKey]) -> JanssonDecoderImpl {
        JanssonDecoderImpl(value: value, root: root, path: path, userInfo: sendableUserInfo, tracker: tracker, rejectsNUL: rejectsNUL)
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = value, object.kind == .object else { throw mismatch(expected: "object") }
        tracker?.register(object, at: path)
        return KeyedDecodingContainer(JanssonKeyedDecodingContainer<Key>(decoder: self, object: object, base: path.count))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let array = value, array.kind == .array else { throw mismatch(expected: "array") }
        return JanssonUnkeyedDecodingContainer(decoder: self, array: array, base: path.count)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JanssonSingleValueDecodingContainer(decoder: self, value: value, base: path.count)
    }

    // MARK: Members of objects

    /// Member `name` of `object`, which must be a jansson object.
    func member(_ name: String, of object: JSONView) -> JSONView? {
        let found = withUTF8Pointer(name) { json_object_getn(object.pointer, $0, $1) }.map(JSONView.init)
        tracker?.asked(name, in: object, found: found != nil)
        return found
    }

    func scalar<S: JanssonScalar>(
        _ type: S.Type, named name: String, of object: JSONView, base: Int, key: any CodingKey
    ) throws(JSONFieldError) -> S {
        try scalar(S.self, from: member(name, of: object), base: base, key: key)
    }

    /// Reads `S` from `found`, the child at `key` of a container at depth `base`.
    func scalar<S: JanssonScalar>(_ type: S.Type, from found: JSONView?, base: Int, key: (any CodingKey)?) throws(JSONFieldError) -> S {
        let value: S
        do {
            value = try S.take(found)
        } catch {
            throw mismatch(found, base: base, key: key, expected: S.expectation)
        }
        if S.self == String.self, rejectsNUL, let found, found.stringContainsNUL {
            throw mismatch(found, base: base, key: key, expected: Self.textWithoutNUL)
        }
        return value
    }

    /// What a `String` with `U+0000` was expected to be, with ``rejectsNUL``.
    static let textWithoutNUL = "a string without U+0000 (NUL)"

    func scalarIfPresent<S: JanssonScalar>(
        _ type: S.Type, named name: String, of object: JSONView, base: Int, key: any CodingKey
    ) throws(JSONFieldError) -> S? {
        guard let found = member(name, of: object), !found.isNull else { return nil }
        return try scalar(S.self, from: found, base: base, key: key)
    }

    // MARK: Decoding children

    /// Decodes the child at `key` (or, with `key` nil, the value at the container's own path).
    func decode<T: Decodable>(_ type: T.Type, from child: JSONView?, base: Int, key: (any CodingKey)?) throws(JSONFieldError) -> T {
        truncatePath(to: base)
        if let key { path.append(key) }
        let saved = value
        value = child
        defer {
            value = saved
            truncatePath(to: base)
        }
        return try unbox(T.self)
    }

    /// Decodes `T` from ``value`` at the current path, turning every error into a ``JSONFieldError``.
    func unbox<T: Decodable>(_ type: T.Type) throws(JSONFieldError) -> T {
        if let element = janssonScalarArrayElement(T.self) {
            func read<S: JanssonScalar>(_: S.Type) throws(JSONFieldError) -> T { unsafeBitCast(try S.readArray(with: self), to: T.self) }
            return try read(element)
        }
        do {
            return try T(from: self)
        } catch {
            throw fieldError(from: error, decoding: T.self)
        }
    }

    private func truncatePath(to count: Int) {
        while path.count > count { path.removeLast() }
    }

    // MARK: Errors

    /// The error for a value of the wrong kind at the current path.
    func mismatch(expected: String) -> JSONFieldError {
        JSONFieldError(field: JanssonCodingPath.field(path), expected: expected, got: Self.describe(value))
    }

    /// The error for a value of the wrong kind at a container's path plus `key`.
    func mismatch(_ found: JSONView?, base: Int, key: (any CodingKey)?, expected: String) -> JSONFieldError {
        var keys = Array(path.prefix(base))
        if let key { keys.append(key) }
        return JSONFieldError(field: JanssonCodingPath.field(keys), expected: expected, got: Self.describe(found))
    }

    static func describe(_ value: JSONView?) -> String {
        value?.preview(limit: 80) ?? JSONFieldError.nothing
    }

    /// Converts what `T(from:)` threw, and names an enum's cases when the enum itself did not fit.
    private func fieldError<T>(from error: any Error, decoding type: T.Type) -> JSONFieldError {
        var result: JSONFieldError
        switch error {
        case let error as JSONFieldError:
            result = error
        case let error as DecodingError:
            result = convert(error)
        default:
            result = JSONFieldError(field: JanssonCodingPath.field(path), expected: "\(error)", got: Self.describe(value))
        }
        if let cases = JanssonEnumCases.names(of: T.self), result.field == JanssonCodingPath.field(path) {
            result.expected = "one of " + cases.joined(separator: ", ")
        }
        return result
    }

    private func convert(_ error: DecodingError) -> JSONFieldError {
        func at(_ keys: [any CodingKey], expected: String) -> JSONFieldError {
            let found = JanssonCodingPath.value(at: keys, in: root)
            return JSONFieldError(field: JanssonCodingPath.field(keys), expected: expected, got: Self.describe(found))
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return at(context.codingPath, expected: janssonExpectation(for: type))
        case .keyNotFound(let key, let context):
            return at(context.codingPath + [key], expected: "a value")
        case .dataCorrupted(let context):
            return at(context.codingPath, expected: context.debugDescription)
        @unknown default:
            return JSONFieldError(field: JanssonCodingPath.field(path), expected: "\(error)", got: Self.describe(value))
        }
    }
}

/// The raw values of a `CaseIterable` enum backed by `String` (quoted) or `Int`, for `one of …` messages.
enum JanssonEnumCases {
    static func names<T>(of type: T.Type) -> [String]? {
        if let probe = Probe<T>.self as? any StringCases.Type { return probe.names }
        if let probe = Probe<T>.self as? any IntCases.Type { return probe.names }
        return nil
    }
}

/// `Probe<T>` conforms to the protocols below only when `T` has the right shape, so a dynamic cast of
/// `Probe<T>.self` asks "is `T` such an enum?" from unconstrained generic code.
private enum Probe<T> {}
private protocol StringCases { static var names: [String] { get } }
private protocol IntCases { static var names: [String] { get } }

extension Probe: StringCases where T: RawRepresentable & CaseIterable, T.RawValue == String {
    static var names: [String] {
        T.allCases.map { value in
            let string = JanssonValue.string(value.rawValue)
            return withExtendedLifetime(string) { JSONWriter.string(of: string.view) }
        }
    }
}

extension Probe: IntCases where T: RawRepresentable & CaseIterable, T.RawValue == Int {
    static var names: [String] { T.allCases.map { String($0.rawValue) } }
}
