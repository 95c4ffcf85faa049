import CJansson

/// An owned reference to a jansson value: holds one reference and releases it on deinit.
///
/// - Important: jansson values are not safe to mutate from two threads at once, so this type is not
///   `Sendable`. Move data between tasks as Swift values (``JSONValue`` or `Codable` structs), or as the
///   finished bytes of a frame.
public final class JanssonValue {
    public let pointer: UnsafeMutablePointer<json_t>

    /// Takes over a reference the caller owns (a "new reference" in jansson's terms).
    public init(taking pointer: UnsafeMutablePointer<json_t>) {
        self.pointer = pointer
    }

    /// Takes a new reference to a value someone else owns (a "borrowed reference").
    public init(retaining pointer: UnsafeMutablePointer<json_t>) {
        self.pointer = json_incref(pointer)!
    }

    deinit { json_decref(pointer) }

    public var view: JSONView { JSONView(pointer) }

    /// A new reference to this value, for handing to a jansson call that takes one over (`*_new`).
    public func retained() -> UnsafeMutablePointer<json_t> { json_incref(pointer)! }

    // MARK: Building

    public static var null: JanssonValue { JanssonValue(taking: json_null()) }

    public static func bool(_ value: Bool) -> JanssonValue { JanssonValue(taking: value ? json_true() : json_false()) }

    public static func integer(_ value: Int64) -> JanssonValue { JanssonValue(taking: json_integer(json_int_t(value))) }

    /// A real number; `nil` for NaN and infinities, which JSON cannot carry.
    public static func real(_ value: Double) -> JanssonValue? { json_real(value).map(JanssonValue.init(taking:)) }

    public static func string(_ value: String) -> JanssonValue {
        JanssonValue(taking: makeString(value))
    }

    public static func object() -> JanssonValue { JanssonValue(taking: json_object()) }

    public static func array() -> JanssonValue { JanssonValue(taking: json_array()) }

    /// Makes a jansson string (which may contain NUL) and returns a new reference. A Swift `String` is
    /// always valid UTF-8, so jansson's check is skipped.
    public static func makeString(_ string: String) -> UnsafeMutablePointer<json_t> {
        withUTF8Pointer(string) { json_stringn_nocheck($0, $1)! }
    }

    /// Sets member `key` of this object, taking over the reference `value` holds (jansson's `set_new`).
    public func set(_ key: String, taking value: UnsafeMutablePointer<json_t>) {
        withUTF8Pointer(key) { _ = json_object_setn_new_nocheck(pointer, $0, $1, value) }
    }

    /// Sets member `key` of this object to `value`, which keeps its own reference.
    public func set(_ key: String, _ value: JanssonValue) {
        set(key, taking: json_incref(value.pointer)!)
    }

    /// A new object or array holding the same members (jansson's `json_copy`: the members themselves
    /// are shared); nil when jansson cannot make it.
    public func shallowCopy() -> JanssonValue? {
        json_copy(pointer).map(JanssonValue.init(taking:))
    }

    /// Removes member `key` of this object, if it has one.
    public func removeMember(_ key: String) {
        _ = json_object_del(pointer, key)
    }

    /// Appends to this array, taking over the reference `value` holds.
    public func append(taking value: UnsafeMutablePointer<json_t>) {
        _ = json_array_append_new(pointer, value)
    }

    public func append(_ value: JanssonValue) {
        append(taking: json_incref(value.pointer)!)
    }
}
