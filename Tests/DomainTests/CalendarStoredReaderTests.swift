@testable import CalendarDomain
import Jansson
import SwitchboardCore
import Testing

/// The stored event's direct reader (``StoredJSONReader``) against what jansson's parse and the
/// `Codable` conformances read from the same text: the same events, the same refusals.
@Suite("Calendar: the stored event reader")
struct CalendarStoredReaderTests {
    /// What the `Codable` conformances read from `body` (jansson's parse, then `JanssonDecoder`): the
    /// meaning the direct reader must keep; `nil` when either refuses it.
    static func reference(_ body: String) -> CalendarEvent? {
        guard let value = try? JSONParser.parse(body.utf8) else { return nil }
        return withExtendedLifetime(value) { try? JanssonDecoder().decode(CalendarEvent.self, from: value.view) }
    }

    static func direct(_ body: String) -> CalendarEvent? { try? EventRow.decode(body) }

    /// A random event: every member the calendar keeps, text that needs escapes, rules and overrides.
    static func randomEvent(_ random: inout SplitMix64) -> CalendarEvent {
        let texts = ["", "Stand-up", "Line\nbreak \"quoted\" \\ back", "Ωmega \u{1F4C5} 日本", "tab\there", "\u{7F}\u{1}", "a/b", "\u{0}nul"]
        func text() -> String { texts[Int(random.next() % UInt64(texts.count))] }
        // jansson refuses a member name holding U+0000, so no stored event has one.
        func key() -> String { texts.filter { !$0.contains("\u{0}") }[Int(random.next() % UInt64(texts.count - 1))] }
        func maybe<T>(_ make: () -> T) -> T? { random.next() % 2 == 0 ? make() : nil }
        let start = LocalDateTime(seconds: Int64(random.next() % 2_000_000_000))
        let rule = RecurrenceRule(frequency: [.daily, .weekly, .monthly, .yearly][Int(random.next() % 4)],
                                  interval: maybe { Int(random.next() % 5) + 1 },
                                  byDay: maybe { [.init(day: .mo, nthOfPeriod: maybe { -1 }), .init(day: .fr)] },
                                  byMonthDay: maybe { [1, -1] }, byHour: maybe { [9] }, count: maybe { Int(random.next() % 20) },
                                  until: maybe { start.adding(seconds: 86_400 * 30) })
        let moved = EventOverride(title: maybe(text), start: maybe { start.adding(seconds: 90_000) }, duration: maybe { EventDuration(seconds: 60) },
                                  participants: maybe { ["p3": Participant(email: "b@example.com")] })
        return CalendarEvent(
            id: "event-\(random.next() % 1000)", title: text(), description: maybe(text), start: start,
            timeZone: maybe { "Europe/Berlin" }, duration: EventDuration(days: Int64(random.next() % 3), seconds: Int64(random.next() % 7200)),
            showWithoutTime: random.next() % 2 == 0,
            locations: maybe { ["l1": Location(name: text()), key(): Location(name: "Room")] },
            participants: maybe {
                ["p1": Participant(name: maybe(text), email: maybe { "a@example.com" }, roles: maybe { ["owner": true, "attendee": false] }),
                 "p2": Participant()]
            },
            recurrenceRules: maybe { [rule] },
            recurrenceOverrides: maybe {
                [start.adding(seconds: 86_400).description: moved, start.adding(seconds: 172_800).description: .exclusion]
            })
    }

    /// `bytes` changed once: a byte replaced, removed or inserted, or a run of them removed or repeated.
    static func mutated(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let interesting = Array(#"{}[]",:\ -+.0123456789eEnultrfa"#.utf8) + [0x00, 0x09, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var bytes = bytes
        let at = Int(random.next() % UInt64(bytes.count))
        let length = min(Int(random.next() % 12) + 1, bytes.count - at)
        switch random.next() % 5 {
        case 0: bytes[at] = interesting[Int(random.next() % UInt64(interesting.count))]
        case 1: bytes.remove(at: at)
        case 2: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: at)
        case 3: bytes.removeSubrange(at..<(at + length))
        default: bytes.insert(contentsOf: bytes[at..<(at + length)], at: at)
        }
        return bytes
    }

    @Test("random events read back equal; bodies changed at random read as jansson and Codable read them, or are refused as they refuse them",
          arguments: 0..<8)
    func agreesWithCodable(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ 3)
        var accepted = 0, refused = 0
        for _ in 0..<60 {
            let event = Self.randomEvent(&random)
            let body = try EventRow.encode(event)
            #expect(Self.direct(body) == event, "\(body)")
            var bytes = Array(body.utf8)
            for _ in 0..<40 {
                bytes = Self.mutated(bytes, &random)
                if bytes.isEmpty { bytes = Array(body.utf8) }
                // As the store hands it over: a String (invalid UTF-8 repaired on the way in).
                let text = String(decoding: bytes, as: UTF8.self)
                let expected = Self.reference(text), found = Self.direct(Self.withoutJanssonsDroppedNUL(text))
                #expect(found == expected, "seed \(seed): \(text.debugDescription)")
                if found == expected {
                    if found == nil { refused += 1 } else { accepted += 1 }
                }
                if expected == nil, random.next() % 3 == 0 { bytes = Array(body.utf8) }
            }
        }
        // Both sides exercised: changes the meaning survives, and changes that break it.
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    /// `text` without the U+0000 that jansson drops: one right after a literal or a number, outside strings (its lexer
    /// gives back the character that ends the token, and a given-back NUL reads as an empty buffer).
    /// The direct reader refuses it, as text that is not JSON.
    static func withoutJanssonsDroppedNUL(_ text: String) -> String {
        var kept: [UInt8] = []
        var inString = false, escaped = false, justDropped = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == 0, !justDropped, let last = kept.last,
                      (48...57).contains(last) || ["true", "false", "null"].contains(where: { kept.suffix($0.utf8.count).elementsEqual($0.utf8) }) {
                // One only: the next NUL is read as a character.
                justDropped = true
                continue
            }
            justDropped = false
            kept.append(byte)
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// A valid event's body with `member` added before its closing brace.
    static func withMember(_ member: String) throws -> String {
        let body = try EventRow.encode(CalendarEvent(id: "x", title: "t", start: LocalDateTime(seconds: 0), timeZone: nil,
                                                     duration: EventDuration(seconds: 60)))
        return String(body.dropLast()) + "," + member + "}"
    }

    /// A member added to a valid event, and whether jansson and the `Codable` conformances take the body.
    struct Case: Sendable, CustomTestStringConvertible {
        var member: String
        var taken: Bool
        var testDescription: String { "\(member) (\(taken ? "taken" : "refused"))" }
        init(_ member: String, _ taken: Bool) {
            self.member = member
            self.taken = taken
        }
    }

    @Test("escapes, numbers, literals, @type, members given twice and trailing text: the reader takes and refuses what jansson and Codable do",
          arguments: [
        Case(#""x":"\ud83d\udcc5 \u00e9 \u0041\/\b\f\n\r\t""#, true), Case(#""x":"\u0000 in a value""#, true), Case(#""x\u0000":1"#, false),
        Case(#""x":"\ud83d alone""#, false), Case(#""x":"\udcc5""#, false), Case(#""x":"\u12G4""#, false), Case(#""x":"\q""#, false),
        Case("\"x\":\"raw\ttab\"", false), Case(#""x":-0"#, true), Case(#""x":-"#, false), Case(#""x":01"#, false), Case(#""x":1.5e3"#, true),
        Case(#""x":1.e3"#, false), Case(#""x":1e999"#, false), Case(#""x":1e-999"#, true), Case(#""x":9223372036854775807"#, true),
        Case(#""x":9223372036854775808"#, false), Case(#""x":-9223372036854775808"#, true), Case(#""x":-9223372036854775809"#, false),
        Case(#""x":[1,2,{"y":[true,false,null]}]"#, true), Case(#""x":[1,]"#, false), Case(#""x":{"y":1,}"#, false), Case(#""x":tru"#, false),
        Case(#""x":nul"#, false), Case(#""x" : [ ] "#, true), Case("\"x\":\t{\r\n}", true), Case("\"x\":1\u{0}\u{0}", false),
        Case(#""title":null"#, false), Case(#""description":null"#, true), Case(#""title":"later wins""#, true), Case(#""showWithoutTime":1"#, false),
        Case(#""showWithoutTime":1,"showWithoutTime":true"#, true), Case(#""showWithoutTime":true,"showWithoutTime":1"#, false),
        Case(#""locations":{"a":{"name":1},"a":{"name":"n"}}"#, true), Case(#""locations":{"a":{"name":"n"},"a":{"name":1}}"#, false),
        Case(#""locations":{"\u00e9":{"name":1},"e\u0301":{"name":"n"}}"#, false),
        Case(#""recurrenceRules":[{"frequency":"daily","count":2.0}]"#, false), Case(#""recurrenceRules":[{"frequency":"daily","count":2}]"#, true),
        Case(#""recurrenceOverrides":{"1970-01-02T00:00:00":{"excluded":true}}"#, true), Case(#""locations":{"a":{"name":"n","x":[{}]}}"#, true),
        Case(#""locations":{"a":{"@type":"Location","name":"n"}}"#, true), Case(#""locations":{"a":{"@type":null,"name":"n"}}"#, true),
        Case(#""locations":{"a":{"@type":"Event","name":"n"}}"#, false), Case(#""locations":{"a":{"@type":5,"name":"n"}}"#, false),
        Case(#""participants":{"p":{"@type":"Participant"}}"#, true), Case(#""participants":{"p":{"@type":"Location"}}"#, false),
        Case(#""recurrenceRules":[{"@type":"RecurrenceRule","frequency":"daily","byDay":[{"@type":"NDay","day":"mo"}]}]"#, true),
        Case(#""recurrenceRules":[{"frequency":"daily","byDay":[{"@type":"Location","day":"mo"}]}]"#, false),
        Case(#""recurrenceRules":[{"@type":"NDay","frequency":"daily"}]"#, false),
    ])
    func tokens(_ given: Case) throws {
        let body = try Self.withMember(given.member)
        let expected = Self.reference(body)
        #expect((expected != nil) == given.taken, "jansson and Codable: \(body)")
        #expect(Self.direct(body) == expected, "\(body)")
        for trailing in [" ", "\n", " x", "{}", ","] {
            #expect(Self.direct(body + trailing) == Self.reference(body + trailing), "\(body + trailing)")
        }
    }

    @Test("a text that is no event object is refused, as jansson and Codable refuse it", arguments: ["", " ", "[]", "\"x\"", "1", "null", "{", "{}"])
    func notAnObject(body: String) {
        #expect(Self.reference(body) == nil && Self.direct(body) == nil)
    }

    @Test("a problem in a map's entry names its position, not its key: a file's text goes into no log")
    func problemNamesNoKey() throws {
        let body = try Self.withMember(#""locations":{"ok":{"name":"n"},"SECRET-KEY":{"name":1}}"#)
        do {
            _ = try EventRow.decode(body)
            Issue.record("a location named by a number was taken")
        } catch let ServiceError.serviceFailure(_, cause) {
            #expect(!cause.contains("SECRET"), "\(cause)")
            #expect(cause.contains("locations[1].name"), "\(cause)")
        }
    }

    @Test("values nested as deep as jansson reads are skipped; one level deeper is refused, as jansson refuses it")
    func depth() throws {
        // The event is one level, the member's value the next: arrays nested `depth` deep, the innermost
        // holding `inner` (a scalar is one level more).
        let limit = JSONParser.maximumDepth
        for (depth, inner) in [(limit - 1, ""), (limit, ""), (limit - 2, "1"), (limit - 1, "1"), (50_000, "")] {
            let body = try Self.withMember("\"x\":" + String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth))
            let expected = Self.reference(body)
            #expect(Self.direct(body) == expected, "depth \(depth) \(inner)")
            let levels = 1 + depth + (inner.isEmpty ? 0 : 1)
            #expect((expected != nil) == (levels <= limit), "depth \(depth) \(inner)")
        }
    }
}
