/// The coding key of an array element, which paths write as `[n]`.
struct JanssonIndexKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(intValue: Int) { self.index = intValue }
    init?(stringValue: String) { nil }

    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
}

/// A coding key for any member name: `superDecoder()`'s `"super"`, and `JSONValue`'s members.
struct JanssonStringKey: CodingKey {
    let stringValue: String

    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue) }

    var intValue: Int? { nil }

    static let `super` = JanssonStringKey("super")
}

enum JanssonCodingPath {
    /// `filter.folder`, `uids[2]`, `items[0].name`; `""` for the root.
    static func field(_ path: some Sequence<any CodingKey>) -> String {
        var text = ""
        for key in path {
            if let index = key as? JanssonIndexKey {
                text += "[\(index.index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }

    /// The value at `path` below `root`, or `nil` when something on the way is missing.
    static func value(at path: [any CodingKey], in root: JSONView) -> JSONView? {
        var current = root
        for key in path {
            let next: JSONView?
            if let index = key as? JanssonIndexKey {
                next = current[index.index]
            } else {
                next = current[key.stringValue]
            }
            guard let next else { return nil }
            current = next
        }
        return current
    }
}
