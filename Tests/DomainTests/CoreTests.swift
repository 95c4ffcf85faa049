import Jansson
import SwitchboardCore
import Testing

@Suite("Timestamps, cursors and change folding")
struct CoreTests {
    @Test("RFC 3339 timestamps round-trip through milliseconds", arguments: [
        "1970-01-01T00:00:00Z", "2026-01-01T09:00:00Z", "2024-02-29T23:59:59.123Z", "1969-12-31T23:59:59Z", "2100-03-01T00:00:00Z",
    ])
    func timestampRoundTrip(text: String) throws {
        let milliseconds = try #require(Timestamp.parse(text))
        #expect(Timestamp.format(milliseconds) == text)
    }

    @Test("offsets are folded into UTC and bad timestamps are nil")
    func timestampParsing() {
        #expect(Timestamp.parse("2026-01-01T10:00:00+01:00") == Timestamp.parse("2026-01-01T09:00:00Z"))
        #expect(Timestamp.parse("2026-01-01T09:00:00Z") == 1_767_258_000_000)
        for bad in ["", "today", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01 09:00:00", "2026-01-01T09:00:00"] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("a cursor decodes in its own list only")
    func cursors() throws {
        let dated = Cursor(list: "inbox/a@example.com/Inbox/all", sortKey: "2026-01-01T09:00:00Z", id: "m-17")
        #expect(try Cursor.decode(dated.encoded, list: dated.list) == dated)
        let simple = Cursor(list: "feed", sortKey: "", id: "42")
        #expect(try Cursor.decode(simple.encoded, list: "feed") == simple)
        #expect(throws: JSONFieldError.self) { try Cursor.decode(simple.encoded, list: "inbox") }
        #expect(throws: JSONFieldError.self) { try Cursor.decode(String(simple.encoded.dropLast()), list: "feed") }
    }

    @Test("changes fold per item: created then destroyed is nothing, updated then destroyed is destroyed")
    func folding() {
        let records: [ChangeRecord] = [
            .init(sequence: 1, itemID: "a", kind: .created), .init(sequence: 2, itemID: "b", kind: .updated),
            .init(sequence: 3, itemID: "a", kind: .updated), .init(sequence: 4, itemID: "c", kind: .created),
            .init(sequence: 5, itemID: "c", kind: .destroyed), .init(sequence: 6, itemID: "b", kind: .destroyed),
        ]
        let set = ChangeTracking.fold(records, domain: "mail", since: 0, limit: 10)
        #expect(set.created == ["a"] && set.updated.isEmpty && set.destroyed == ["b"])
        #expect(set.newState == ChangeTracking.state(domain: "mail", sequence: 6))
        let limited = ChangeTracking.fold(records, domain: "mail", since: 0, limit: 1)
        #expect(limited.hasMoreChanges && limited.created == ["a"])
        #expect(limited.newState == ChangeTracking.state(domain: "mail", sequence: 1))
    }
}
