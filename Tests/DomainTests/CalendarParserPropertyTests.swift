import CalendarDomain
import PropertyBased
import SwitchboardCore
import Testing

/// The parsers of client input for dates, date-times, durations and zone names: any text is
/// accepted or refused without trapping, and what is accepted formats back to the same value.
@Suite("Calendar parsers, property-tested")
struct CalendarParserPropertyTests {
    static let noise = PropertyInputs.text(PropertyInputs.timestampPieces, count: 0...30)
    static let durationPieces = ["P", "T", "W", "D", "H", "M", "S", "0", "1", "12", "-", "+", "999999999", "1234567890", ".", "é", "\u{0}"]
    static let zonePieces = ["Europe", "/", "Berlin", "UTC", "America", "New_York", "Etc", "GMT", "+5", "_", "..", "\u{0}", "utc"]

    @Test("any text: a date parses to one that prints back to it, or is refused")
    func dates() async {
        await propertyCheck(count: 2_000, input: Self.noise) { text in
            if let date = CalendarDate(text) { #expect(date.description == text) }
        }
    }

    @Test("every valid date of the accepted years round-trips")
    func validDates() async {
        await propertyCheck(input: Gen.int(in: 1900...2199), Gen.int(in: 1...12), Gen.int(in: 1...31)) { year, month, day in
            let text = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
            let valid = day <= Timestamp.daysIn(month: Int64(month), year: Int64(year))
            #expect((CalendarDate(text) != nil) == valid)
            #expect(CalendarDate(text)?.description == (valid ? text : nil))
        }
    }

    @Test("any text: a local date-time parses to one that prints back to it, or is refused")
    func dateTimes() async {
        await propertyCheck(count: 2_000, input: Self.noise) { text in
            if let local = LocalDateTime(text) { #expect(local.description == text) }
        }
    }

    @Test("date-times with fields out of range are refused", arguments: [
        "2026-11-23T24:00:00", "2026-11-23T09:60:00", "2026-11-23T09:00:60", "2026-02-29T09:00:00", "1899-12-31T23:59:59",
        "2200-01-01T00:00:00", "2026-11-23T09:00:00Z", "2026-11-23T09:00:00.5", "+2026-11-23T09:00:00",
    ])
    func outOfRange(text: String) {
        #expect(LocalDateTime(text) == nil)
    }

    @Test("any text: a duration parses to one whose canonical text parses to the same, or is refused")
    func durations() async {
        await propertyCheck(count: 2_000, input: PropertyInputs.text(Self.durationPieces, count: 0...12)) { text in
            if case .success(let duration) = EventDuration.parse(text) {
                #expect(EventDuration.parse(duration.description) == .success(duration))
                #expect(duration.days >= 0 && duration.seconds >= 0)
            }
        }
    }

    @Test("generated durations round-trip; negative ones are refused as negative")
    func generatedDurations() async {
        await propertyCheck(input: Gen.int(in: 0...400), Gen.int(in: 0...23), Gen.int(in: 0...59)) { days, hours, minutes in
            let text = "P\(days)DT\(hours)H\(minutes)M"
            let parsed = EventDuration.parse(text)
            #expect(parsed == .success(EventDuration(days: Int64(days), seconds: Int64(hours * 3600 + minutes * 60))))
            #expect(EventDuration.parse("-" + text) == .failure(.negative))
        }
    }

    @Test("any text: a zone name is known or refused, never a trap")
    func zoneNames() async {
        await propertyCheck(count: 1_000, input: PropertyInputs.text(Self.zonePieces, count: 0...6)) { text in
            if let zone = ZoneRules.named(text) { #expect(zone.identifier == text) }
        }
    }
}
