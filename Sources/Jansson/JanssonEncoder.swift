import CJansson

/// Encodes `Encodable` values straight into jansson values: no intermediate text, no Foundation.
///
/// - Members come out in the order they are encoded (for synthesized conformances, the order of the
///   stored properties).
/// - `encodeIfPresent(nil)` leaves the member out; `encodeNil` writes `null`.
/// - A top-level scalar is fine: `"pong"`, `42`, `Optional<Int>.none` (`null`).
/// - `JSONValue` is built directly, keeping its member order and integer-vs-real.
/// - `UInt64`/`UInt` above `Int64.max` (jansson integers are signed 64-bit) and non-finite `Double`/`Float`
///   throw `EncodingError.invalidValue`, whose description names the member's path.
/// - A value that encodes nothing becomes `{}`.
/// - A ``JanssonEncodable`` value at the top builds its object itself, and a ``JSONTextEncodable`` one
///   writes its text itself (unless `userInfo` is set).
public struct JanssonEncoder: Sendable {
    /// Handed to `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JanssonValue {
        JanssonValue(taking: try encodePointer(value))
    }

    /// Encodes `value` and returns a new jansson reference, which the caller must release (or hand to a
    /// `_new` function of jansson).
    public func encodePointer<T: Encodable>(_ value: T) throws -> UnsafeMutablePointer<json_t> {
        // One conformance look-up (cached by the runtime after the first of each type) saves the whole
        // `Encoder` round trip for the types that build themselves.
        if userInfo.isEmpty, let direct = value as? any JanssonEncodable { return try direct.makeJanssonObject() }
        if userInfo.isEmpty, let text = value as? any JSONTextEncodable { return try text.makeRawPointer() }
        return try JanssonEncoderImpl(path: [], userInfo: userInfo).encodeRoot(value)
    }

    /// ``encode(_:)`` through the `Encoder` alone, for a type known to be neither ``JanssonEncodable``
    /// nor ``JSONTextEncodable``: no cast asks. A process's first cast of a type to a protocol searches
    /// every conformance of the binary (~0.1 ms), which a one-shot call pays in full.
    public func encodeThroughEncoder<T: Encodable>(_ value: T) throws -> JanssonValue {
        JanssonValue(taking: try JanssonEncoderImpl(path: [], userInfo: userInfo).encodeRoot(value))
    }
}

/// The `Encoder`: one object serves a whole encode, its coding path used as a stack (as in the decoder).
///
/// `slot` holds the value of the level being encoded (a new reference). Keyed and unkeyed containers
/// write into the jansson object or array they were made for, so nothing is copied once built.
/// A nested container gets an encoder of its own, whose path ends in the nested container's key.
final class JanssonEncoderImpl: Encoder {
    // Exclusivity is not checked on the hot properties: they change only in `encodeChild` and
    // `setSlot`, strictly nested, and the checks would be a good part of the cost of a small struct.

    @exclusivity(unchecked) var path: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    @exclusivity(unchecked) private(set) var slot: UnsafeMutablePointer<json_t>?
    /// How many `encodeChild` calls are under way; the level of `slot`.
    @exclusivity(unchecked) private var level = 0
    /// For an encoder made by `superEncoder()`: where its value goes in the parent.
    private let target: JanssonSuperTarget?
    /// The current level's object holds a `Dictionary`'s members: they are sorted once it is encoded.
    @exclusivity(unchecked) var sortsMembers = false
    /// When probing (``DictionaryKeys/codingKeyType``): the key type of the last keyed container asked for.
    @exclusivity(unchecked) var lastKeyType: ObjectIdentifier?
    private let probing: Bool

    init(path: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable], target: JanssonSuperTarget? = nil,
         probing: Bool = false) {
        self.path = path
        self.sendableUserInfo = userInfo
        self.target = target
        self.probing = probing
    }

    deinit {
        if let slot { json_decref(slot) }
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if probing {
            lastKeyType = ObjectIdentifier(Key.self)
        } else if ObjectIdentifier(Key.self) == DictionaryKeys.codingKeyType {
            sortsMembers = true
        }
        let object: UnsafeMutablePointer<json_t>
        if let slot, sb_json_typeof(slot) == JSON_OBJECT {
            object = slot
        } else {
            object = json_object()!
            setSlot(object)
        }
        return KeyedEncodingContainer(JanssonKeyedEncodingContainer<Key>(encoder: self, object: object, base: path.count))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: UnsafeMutablePointer<json_t>
        if let slot, sb_json_typeof(slot) == JSON_ARRAY {
            array = slot
        } else {
            array = json_array()!
            setSlot(array)
        }
        return JanssonUnkeyedEncodingContainer(encoder: self, array: array, base: path.count)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JanssonSingleValueEncodingContainer(encoder: self, base: path.count)
    }

    /// An encoder for a nested container or `superEncoder`, at `path`.
    func subEncoder(at path: [any CodingKey], target: JanssonSuperTarget? = nil) -> JanssonEncoderImpl {
        JanssonEncoderImpl(path: path, userInfo: sendableUserInfo, target: target)
    }

    /// Makes `value` (a new reference) the value of the current level, releasing any earlier one.
    func setSlot(_ value: UnsafeMutablePointer<json_t>) {
        if let slot { json_decref(slot) }
        slot = value
        if level == 0, let target { target.store(json_incref(value)!) }
    }

    // MARK: Encoding

    func encodeRoot<T: Encodable>(_ value: T) throws -> UnsafeMutablePointer<json_t> {
        do {
            try value.encode(to: self)
        } catch {
            if let slot { json_decref(slot) }
            slot = nil
            throw error
        }
        if sortsMembers { sortSlotMembers() }
        let result = slot ?? json_object()!
        slot = nil
        return result
    }

    /// Encodes the child at `key` (or, with `key` nil, at the container's own path) and returns a new reference.
    func encodeChild<T: Encodable>(_ value: T, base: Int, key: (any CodingKey)?) throws -> UnsafeMutablePointer<json_t> {
        truncatePath(to: base)
        if let key { path.append(key) }
        if let element = janssonScalarArrayElement(T.self) {
            defer { truncatePath(to: base) }
            func make<S: JanssonScalar>(_: S.Type) throws -> UnsafeMutablePointer<json_t> {
                try S.makeArray(unsafeBitCast(value, to: [S].self), at: path)
            }
            return try make(element)
        }
        let saved = slot, savedSorts = sortsMembers
        slot = nil
        sortsMembers = false
        level += 1
        defer {
            slot = saved
            sortsMembers = savedSorts
            level -= 1
            truncatePath(to: base)
        }
        do {
            try value.encode(to: self)
        } catch {
            if let slot { json_decref(slot) }
            throw error
        }
        if sortsMembers { sortSlotMembers() }
        return slot ?? json_object()!
    }

    private func truncatePath(to count: Int) {
        while path.count > count { path.removeLast() }
    }

    /// Sets member `name` of `object`, taking over the reference `value` holds.
    static func set(_ value: UnsafeMutablePointer<json_t>, named name: String, in object: UnsafeMutablePointer<json_t>) {
        withUTF8Pointer(name) { _ = json_object_setn_new_nocheck(object, $0, $1, value) }
    }

    /// A new reference to `value`, or `EncodingError.invalidValue` at the container's path plus `key`.
    func make<S: JanssonScalar>(_ value: S, base: Int, key: (any CodingKey)?) throws -> UnsafeMutablePointer<json_t> {
        if let made = value.makeJSON() { return made }
        var keys = Array(path.prefix(base))
        if let key { keys.append(key) }
        throw Self.invalid(value, reason: value.unrepresentableReason, at: keys)
    }

    /// `make(_:base:key:)` for a `T` that ``janssonScalarType(_:)`` found to be `scalarType`.
    func make<T>(_ value: T, as scalarType: any JanssonScalar.Type, base: Int, key: (any CodingKey)?) throws -> UnsafeMutablePointer<json_t> {
        func make<S: JanssonScalar>(_: S.Type) throws -> UnsafeMutablePointer<json_t> {
            try self.make(unsafeBitCast(value, to: S.self), base: base, key: key)
        }
        return try make(scalarType)
    }

    static func invalid(_ value: Any, reason: String, at keys: [any CodingKey]) -> EncodingError {
        let field = JanssonCodingPath.field(keys)
        let place = field.isEmpty ? "the value" : field
        return EncodingError.invalidValue(value, EncodingError.Context(codingPath: keys, debugDescription: "\(place): \(reason)"))
    }
}

/// Where the value of a `superEncoder()` goes: a member of an object or an element of an array, both
/// borrowed from the tree being built.
struct JanssonSuperTarget {
    enum Place {
        case member(String)
        case element(Int)
    }

    let parent: UnsafeMutablePointer<json_t>
    let place: Place

    /// Puts `value` (a new reference, taken over) at the place.
    func store(_ value: UnsafeMutablePointer<json_t>) {
        switch place {
        case .member(let name): withUTF8Pointer(name) { _ = json_object_setn_new_nocheck(parent, $0, $1, value) }
        case .element(let index): json_array_set_new(parent, index, value)
        }
    }
}
