/// An id compared as SQLite's `BINARY` collation and PostgreSQL's `"C"` compare it: by its exact UTF-8
/// bytes. Swift's `String ==` is canonical equivalence, so `"caf\u{E9}"` and `"cafe\u{301}"` are one
/// `String` key but two rows in a store; a memory service keyed by `String` took them as one event.
///
/// Usage: `var position: [ExactID: Int]`, `position[ExactID(id)]`; `<` is byte order, the stores' `ORDER BY id`.
public struct ExactID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let id: String

    public init(_ id: String) {
        self.id = id
    }

    public var description: String { id }

    public static func == (a: ExactID, b: ExactID) -> Bool {
        a.id.hasSameBytes(as: b.id)
    }

    public func hash(into hasher: inout Hasher) {
        var bytes = id
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(id.utf8.count)
    }

    public static func < (a: ExactID, b: ExactID) -> Bool {
        a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }
}

extension String {
    /// Whether `other` has the same UTF-8 bytes, as ``ExactID`` compares: an id or uid's equality in
    /// every store, where `==` would take canonically equivalent texts as one.
    public func hasSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
