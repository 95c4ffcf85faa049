import Jansson

enum Folder: String, Codable, CaseIterable, Equatable {
    case inbox, sent
}

enum Priority: Int, Codable, CaseIterable, Equatable {
    case low = 1, high = 2
}

struct Filter: Codable, Equatable {
    var from: String?
    var unread: Bool
}

struct ListParams: Codable, Equatable {
    var folder: Folder
    var limit: Int
    var filter: Filter?
    var uids: [UInt32]
    var tags: [String]?
}

struct Narrow: Codable, Equatable {
    var small: Int8?
    var byte: UInt8?
    var short: Int16?
    var word: UInt32?
    var big: UInt64?
    var ratio: Double?
    var single: Float?
}

/// A wrapper whose member decodes through the generic path, so `T = Int?` meets a missing member
/// as `decode(Int?.self, forKey:)` rather than `decodeIfPresent`.
struct Box<T> {
    var value: T
}

extension Box: Encodable where T: Encodable {}
extension Box: Decodable where T: Decodable {}
extension Box: Equatable where T: Equatable {}

/// Decodes a date-like string itself, throwing `dataCorrupted` for anything else.
struct Day: Codable, Equatable {
    var year: Int
    var month: Int

    init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a month such as \"2024-05\""))
        }
        self.init(year: parts[0], month: parts[1])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(year)-\(month)")
    }
}

struct Schedule: Codable, Equatable {
    var days: [Day]
}

struct NotReady: Error, CustomStringConvertible {
    var description: String { "a ready value" }
}

/// Throws an error of its own from `init(from:)`.
struct Picky: Decodable {
    init(from decoder: any Decoder) throws { throw NotReady() }
}

struct HasPicky: Decodable {
    var inner: [Picky]
}

/// Reads the same document through keyed, nested and unkeyed containers by hand.
struct Handmade: Decodable, Equatable {
    var name: String
    var first: Int
    var rest: [Int]
    var color: String
    var parentID: Int

    enum Keys: String, CodingKey { case name, pair, meta }
    enum MetaKeys: String, CodingKey { case color }
    enum ParentKeys: String, CodingKey { case id }

    init(name: String, first: Int, rest: [Int], color: String, parentID: Int) {
        (self.name, self.first, self.rest, self.color, self.parentID) = (name, first, rest, color, parentID)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        var pair = try container.nestedUnkeyedContainer(forKey: .pair)
        first = try pair.decode(Int.self)
        var rest: [Int] = []
        while !pair.isAtEnd { rest.append(try pair.decode(Int.self)) }
        self.rest = rest
        let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        color = try meta.decode(String.self, forKey: .color)
        let parent = try container.superDecoder().container(keyedBy: ParentKeys.self)
        parentID = try parent.decode(Int.self, forKey: .id)
    }
}

/// Fails deep inside a nested unkeyed container, to check the path it reports.
struct DeepPair: Decodable {
    enum Keys: String, CodingKey { case meta, pairs }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var pairs = try container.nestedContainer(keyedBy: Keys.self, forKey: .meta).nestedUnkeyedContainer(forKey: .pairs)
        _ = try pairs.decode(Int.self)
        _ = try pairs.decode(Int.self)
    }
}

/// Decodes and encodes as the `Filter` it wraps, through single-value containers.
struct Transparent: Codable, Equatable {
    var inner: Filter

    init(inner: Filter) { self.inner = inner }

    init(from decoder: any Decoder) throws { inner = try decoder.singleValueContainer().decode(Filter.self) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(inner)
    }
}
