/// Any JSON value, as a Swift value: for free-form params and results (`host.echo`, `_meta`, plugin data).
///
/// Integers and reals stay apart, as jansson keeps them: `1` is `.integer(1)` and `1.0` is `.double(1)`,
/// so a value read and written again comes out as it came in. Objects keep their members in order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object that keeps its members in the order they were added.
///
/// Small objects are searched in order; past a few members an index by key keeps look-ups and
/// additions O(1), so building a large object is linear.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSONValue] = []
    private var index: [String: Int]?
    private static let indexThreshold = 8

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    /// The member named `key`; setting `nil` removes it, setting an existing key keeps its place.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    index = nil
                    if keys.count > Self.indexThreshold { rebuildIndex() }
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if index != nil {
                    index![key] = keys.count - 1
                } else if keys.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    private mutating func rebuildIndex() {
        var built: [String: Int] = [:]
        built.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { built[key] = position }
        index = built
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSONValue]>.Iterator {
        zip(keys, values).makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONValue {
    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .integer: .integer
        case .double: .real
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var int64Value: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}
