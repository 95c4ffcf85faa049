import CJansson

/// A type that builds its jansson value itself, skipping the `Encoder` machinery: for the hot answers
/// (pages of items), where keyed containers, coding keys and generic dispatch per member would cost
/// more than building the value does.
///
/// ``JanssonEncoder`` uses ``makeJanssonObject()`` whenever the value it encodes conforms; the type's
/// `Encodable` conformance must write the same JSON, and is what every other encoder uses.
public protocol JanssonEncodable: Encodable {
    /// Writes this value's members into `object` (an empty jansson object being built).
    func writeMembers(into object: JanssonObjectBuilder) throws
}

extension JanssonEncodable {
    /// A new reference to this value as a jansson object.
    public func makeJanssonObject() throws -> UnsafeMutablePointer<json_t> {
        let object = JanssonObjectBuilder()
        do {
            try writeMembers(into: object)
        } catch {
            json_decref(object.pointer)
            throw error
        }
        return object.pointer
    }
}

/// Sets the members of one jansson object being built, by `StaticString` names: no key strings are
/// made, no coding path kept. The builder borrows the object; whoever made it owns the reference.
public struct JanssonObjectBuilder {
    public let pointer: UnsafeMutablePointer<json_t>

    /// Makes a new, empty object; the caller takes over its reference.
    init() { pointer = json_object()! }

    init(borrowing pointer: UnsafeMutablePointer<json_t>) { self.pointer = pointer }

    /// Sets member `name`, taking over the reference `value` holds.
    @inline(__always)
    private func set(_ name: StaticString, taking value: UnsafeMutablePointer<json_t>) {
        name.utf8Start.withMemoryRebound(to: CChar.self, capacity: name.utf8CodeUnitCount) {
            _ = json_object_setn_new_nocheck(pointer, $0, name.utf8CodeUnitCount, value)
        }
    }

    public func set(_ name: StaticString, _ value: Int64) { set(name, taking: json_integer(json_int_t(value))) }

    public func set(_ name: StaticString, _ value: Int) { set(name, taking: json_integer(json_int_t(value))) }

    public func set(_ name: StaticString, _ value: Bool) { set(name, taking: value ? json_true() : json_false()) }

    public func set(_ name: StaticString, _ value: String) { set(name, taking: JanssonValue.makeString(value)) }

    /// Sets `null` for `nil`: every member is present, so clients see one shape.
    public func set(_ name: StaticString, _ value: String?) {
        set(name, taking: value.map(JanssonValue.makeString) ?? json_null())
    }

    /// Sets a nested object.
    public func set<Value: JanssonEncodable>(_ name: StaticString, _ value: Value) throws {
        set(name, taking: try value.makeJanssonObject())
    }

    /// Sets an array of objects.
    public func set<Element: JanssonEncodable>(_ name: StaticString, _ values: [Element]) throws {
        let array = json_array()!
        set(name, taking: array)
        for value in values {
            json_array_append_new(array, try value.makeJanssonObject())
        }
    }

    /// Sets a member through the general encoder, for values that do not build themselves.
    public func set<Value: Encodable>(_ name: StaticString, encoding value: Value) throws {
        set(name, taking: try JanssonEncoder().encodePointer(value))
    }
}
