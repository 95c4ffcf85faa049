import CJansson
#if canImport(Glibc)
import Glibc
#endif

/// Which members of the objects of one decode were asked for, so that members no one asked for can
/// be refused once decoding is done (``JanssonDecoder/unknownMembers``).
///
/// A keyed container registers its object when made; every member lookup (`decode`,
/// `decodeIfPresent`, `contains`, `decodeNil`) records the name asked; `allKeys` marks the object
/// open (a dictionary takes any member). Two containers on one object (a `Params` that reads some
/// members itself and hands the decoder to `PageRequest(from:)` for the rest) share one record.
/// Records are found by their object's address, and an open object records no names: a map or
/// array of 40,000 objects once cost a scan of all records and names per member (19 s).
final class JanssonMemberTracker {
    /// One object read by keyed containers: a class, so recording a name mutates it in place.
    private final class Record {
        let object: UnsafeMutablePointer<json_t>
        let path: [any CodingKey]
        // Only the decode that owns the tracker touches it, one call at a time: the exclusivity
        // checks would cost more than the work (as in `JanssonDecoderImpl`).
        @exclusivity(unchecked) var asked: [String] = []
        /// How many of `asked` the object has: when that is all its members, none is unknown.
        @exclusivity(unchecked) var found = 0
        @exclusivity(unchecked) var open = false

        init(object: UnsafeMutablePointer<json_t>, path: [any CodingKey]) {
            self.object = object
            self.path = path
            asked.reserveCapacity(8)  // one allocation for a typical params object, not one per growth
        }
    }

    @exclusivity(unchecked) private var records: [Record] = []
    /// Each record's position in `records`, by its object.
    @exclusivity(unchecked) private var positions: [UnsafeMutablePointer<json_t>: Int] = [:]
    /// Members of the top-level object accepted without being asked for (`_meta`).
    private let acceptedAtTop: [String]

    init(acceptedAtTop: [String]) {
        self.acceptedAtTop = acceptedAtTop
    }

    private func record(of object: JSONView) -> Record? {
        positions[object.pointer].map { records[$0] }
    }

    /// Notes that a keyed container reads `object`, found at `path`.
    func register(_ object: JSONView, at path: @autoclosure () -> [any CodingKey]) {
        guard positions[object.pointer] == nil else { return }
        positions[object.pointer] = records.count
        records.append(Record(object: object.pointer, path: path()))
    }

    /// Records that `name` was asked for in `object`, and whether `object` has it.
    func asked(_ name: String, in object: JSONView, found: Bool) {
        guard let record = record(of: object), !record.open, !record.asked.contains(name) else { return }
        record.asked.append(name)
        if found { record.found += 1 }
    }

    func markOpen(_ object: JSONView) {
        record(of: object)?.open = true
    }

    /// Throws for the first member, in the order received, that no one asked for.
    func check() throws(JSONFieldError) {
        for record in records where !record.open {
            let object = JSONView(record.object)
            // The common case, every member asked for, costs no walk over the members.
            if record.found == object.count { continue }
            var unknown: (name: String, value: JSONView)?
            object.forEachMember { name, value in
                guard unknown == nil, !record.asked.contains(name),
                      !(record.path.isEmpty && acceptedAtTop.contains(name)) else { return }
                unknown = (name, value)
            }
            guard let unknown else { continue }
            let known = record.asked.isEmpty ? "no members" : "only " + record.asked.joined(separator: ", ")
            throw JSONFieldError(
                field: JanssonCodingPath.field(record.path + [JanssonStringKey(unknown.name)]),
                expected: "no member of this name (this object takes \(known))",
                got: JanssonDecoderImpl.describe(unknown.value)
            )
        }
    }
}

extension JSONView {
    /// True when a string value holds `U+0000` (C functions, SQLite bindings among them, would cut it there).
    var stringContainsNUL: Bool {
        guard let chars = json_string_value(pointer) else { return false }
        return strlen(chars) != json_string_length(pointer)
    }
}
