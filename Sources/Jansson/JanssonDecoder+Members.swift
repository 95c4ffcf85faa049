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
/// Decodes see a handful of objects, so records are found by a linear scan, newest first.
final class JanssonMemberTracker {
    private struct Record {
        let object: UnsafeMutablePointer<json_t>
        let path: [any CodingKey]
        var asked: [String] = []
        var open = false
    }

    private var records: [Record] = []
    /// Members of the top-level object accepted without being asked for (`_meta`).
    private let acceptedAtTop: [String]

    init(acceptedAtTop: [String]) {
        self.acceptedAtTop = acceptedAtTop
    }

    private func index(of object: JSONView) -> Int? {
        records.lastIndex { $0.object == object.pointer }
    }

    /// Notes that a keyed container reads `object`, found at `path`.
    func register(_ object: JSONView, at path: @autoclosure () -> [any CodingKey]) {
        if index(of: object) == nil { records.append(Record(object: object.pointer, path: path())) }
    }

    func asked(_ name: String, in object: JSONView) {
        guard let index = index(of: object), !records[index].asked.contains(name) else { return }
        records[index].asked.append(name)
    }

    func markOpen(_ object: JSONView) {
        if let index = index(of: object) { records[index].open = true }
    }

    /// Throws for the first member, in the order received, that no one asked for.
    func check() throws(JSONFieldError) {
        for record in records where !record.open {
            let object = JSONView(record.object)
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
