import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import PostgresTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The import record reader on generated input (seeded, so a failing seed reproduces): records with
/// random member types, missing members, huge strings, NUL, odd dates and random Unicode each give
/// a stored message or a clear error at their index, never a trap; inline and from a file alike.
@Suite("Import records: generated input", .postgresStores)
struct ImportRecordPropertyTests {
    static let seeds: [UInt64] = Array(1...16)

    @Test("any record gives a message or a clear error at its index, inline and from a file", arguments: seeds)
    func generated(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        var records: [JSONValue] = []
        var good = 0
        for index in 0..<120 {
            if random.chance(25) {
                records.append(RecordGenerator.good(&random, uid: "good-\(seed)-\(index)"))
                good += 1
            } else {
                records.append(RecordGenerator.any(&random, longFractions: false))
            }
        }
        let inline = try await Self.importOutcome(records, backend: .memory, viaFile: false)
        Self.check(inline, records: records, good: good, seed: seed)
        #expect(try await Self.importOutcome(records, backend: .sqlite, viaFile: false) == inline, "seed \(seed)")
        if TestPostgres.isAvailable {
            #expect(try await Self.importOutcome(records, backend: .postgres, viaFile: false) == inline, "seed \(seed)")
        }
        #expect(try await Self.importOutcome(records, backend: .memory, viaFile: true) == inline, "seed \(seed)")
    }

    @Test("dates with any number of fractional digits give a time or a clear error", arguments: seeds.prefix(4))
    func longFractions(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let records = (0..<60).map { index -> JSONValue in
            var record = RecordGenerator.good(&random, uid: "f-\(index)").objectValue ?? [:]
            record["dateTime"] = .string(RecordGenerator.date(&random, longFractions: true))
            return .object(record)
        }
        let outcome = try await Self.importOutcome(records, backend: .memory, viaFile: false)
        Self.check(outcome, records: records, good: 0, seed: seed)
    }

    /// What an import of `records` into an empty mailbox answered, without the state.
    static func importOutcome(_ records: [JSONValue], backend: MailBackend, viaFile: Bool) async throws -> JSONValue {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0)))
        var result: JSONValue
        if viaFile {
            let file = MailTempFile(prototypeInbox(records), name: "generated")
            defer { file.remove() }
            result = try await client.result("mail.import", ["path": .string(file.path)])
        } else {
            result = try await client.result("mail.import", ["records": .array(records)])
        }
        var object = result.objectValue ?? [:]
        object["state"] = nil
        return .object(object)
    }

    static let members = ["uid", "from", "to", "subject", "text", "responseToUid", "dateTime"]

    /// Every record is counted once; errors are in order, at real indices, short, and name a member.
    static func check(_ outcome: JSONValue, records: [JSONValue], good: Int, seed: UInt64) {
        let imported = outcome["imported"]?.int64Value ?? -1
        let skipped = outcome["skipped"]?.int64Value ?? -1
        let errors = outcome["errors"]?.arrayValue ?? []
        #expect(Int(imported + skipped) + errors.count == records.count, "seed \(seed): \(outcome.jsonText().prefix(500))")
        #expect(imported >= good, "seed \(seed)")
        let indices = errors.compactMap { $0["index"]?.int64Value }
        #expect(indices.count == errors.count && indices == indices.sorted() && Set(indices).count == indices.count, "seed \(seed)")
        #expect(indices.allSatisfy { (0..<Int64(records.count)).contains($0) }, "seed \(seed)")
        for error in errors {
            let reason = error["reason"]?.stringValue ?? ""
            let named = reason.hasPrefix("expected an object, got ") || members.contains { reason.hasPrefix("\($0): expected ") }
            #expect(named && reason.utf8.count <= 400, "seed \(seed): \(reason.prefix(300)) … \(reason.utf8.count) bytes")
        }
    }
}

/// Generated records in the prototype format, good and odd.
enum RecordGenerator {
    static let addresses = ["ada@example.com", "demo@switchboard.example", "a.b+c@sub.example.org", "x@example.org, y@example.org"]

    /// A record every member of which is valid.
    static func good(_ random: inout SplitMix64, uid: String) -> JSONValue {
        [
            "uid": .string(uid), "from": .string(random.pick(Array(addresses.prefix(3)))), "to": .string(random.pick(addresses)),
            "subject": .string(withoutNUL(text(&random, length: random.next(below: 40)))),
            "text": .string(withoutNUL(text(&random, length: random.next(below: 200)))),
            "responseToUid": .string(random.chance(50) ? "good-\(random.next(below: 40))" : ""),
            "dateTime": .string(random.pick(["Today", "Yesterday", "2025-12-24T18:30:00+01:00", "2024-02-29T23:59:59.999Z"])),
        ]
    }

    /// `text` less any U+0000, which every method refuses in text.
    static func withoutNUL(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0.value != 0 })
        return String(scalars)
    }

    /// Anything: not an object at times, else each member missing, of another type, or an odd string.
    static func any(_ random: inout SplitMix64, longFractions: Bool) -> JSONValue {
        if random.chance(8) { return value(&random, depth: 0) }
        var record: JSONObject = [:]
        for member in ImportRecordPropertyTests.members where !random.chance(10) {
            switch random.next(below: 10) {
            case 0: record[member] = value(&random, depth: 0)
            case 1: record[member] = .string(text(&random, length: random.chance(20) ? 100_000 + random.next(below: 100_000) : random.next(below: 30)))
            case 2: record[member] = .string(text(&random, length: 5) + "\u{0}" + text(&random, length: 5))
            case 3: record[member] = .null
            default:
                switch member {
                case "from", "to": record[member] = .string(random.chance(50) ? random.pick(addresses) : text(&random, length: 8) + "@" + text(&random, length: 6))
                case "dateTime": record[member] = .string(date(&random, longFractions: longFractions))
                case "responseToUid", "uid": record[member] = .string(random.chance(70) ? "u\(random.next(below: 60))" : text(&random, length: random.next(below: 250)))
                default: record[member] = .string(text(&random, length: random.next(below: 60)))
                }
            }
        }
        return .object(record)
    }

    /// A JSON value of any type.
    static func value(_ random: inout SplitMix64, depth: Int) -> JSONValue {
        switch random.next(below: depth > 2 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.chance(50))
        case 2: return .integer(Int64(bitPattern: random.next()))
        case 3: return .double(Double(Int64(bitPattern: random.next())) / 1_000.0)
        case 4: return .string(text(&random, length: random.next(below: 20)))
        case 5: return .array((0..<random.next(below: 4)).map { _ in value(&random, depth: depth + 1) })
        default:
            var object: JSONObject = [:]
            for _ in 0..<random.next(below: 4) { object["k\(random.next(below: 100))"] = value(&random, depth: depth + 1) }
            return .object(object)
        }
    }

    /// `length` characters from ASCII, Latin, CJK, emoji, combining marks, right-to-left, controls and noncharacters.
    static func text(_ random: inout SplitMix64, length: Int) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x20...0x7E, 0x00...0x1F, 0xA0...0x24F, 0x300...0x36F, 0x590...0x6FF,
                                             0x4E00...0x9FFF, 0x1F300...0x1FAFF, 0xFFF0...0xFFFF, 0x10000...0x10FFFF]
        var scalars = String.UnicodeScalarView()
        let range = random.pick(ranges)
        for _ in 0..<length {
            let pick = random.chance(80) ? range : random.pick(ranges)
            let value = pick.lowerBound + UInt32(random.next(below: Int(pick.upperBound - pick.lowerBound) + 1))
            scalars.append(Unicode.Scalar(value) ?? "?")
        }
        return String(scalars)
    }

    /// An RFC 3339 time that may be odd in any part; fractions of up to three digits unless `longFractions`.
    static func date(_ random: inout SplitMix64, longFractions: Bool) -> String {
        if random.chance(15) {
            return random.pick(["Today", " yesterday ", "TODAY", "tomorrow", "", "2026-01-01", "T", "2026-01-01T09:00:00",
                                "99999999999-01-01T00:00:00Z", "-2026-01-01T00:00:00Z", "2026-01-01t09:00:00z", "2026-01-01 09:00:00Z"])
        }
        func number(_ digits: Int, _ bound: Int) -> String {
            let value = random.next(below: bound)
            let text = String(value)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        var text = "\(number(4, 10_000))-\(number(2, 14))-\(number(2, 33))T\(number(2, 26)):\(number(2, 62)):\(number(2, 62))"
        if random.chance(40) {
            let digits = longFractions ? 1 + random.next(below: 25) : 1 + random.next(below: 3)
            text += "." + (0..<digits).map { _ in String(random.next(below: 10)) }.joined()
        }
        text += random.pick(["Z", "z", "+00:00", "-00:00", "+23:59", "+24:00", "-12:30", "+5:00", "", "+0100"])
        return text
    }
}
