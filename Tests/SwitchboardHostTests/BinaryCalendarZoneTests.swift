import Jansson
import Testing

/// The 651-byte file of issue 19 (a VTIMEZONE with `RRULE:FREQ=MINUTELY` from 1970) against the binary:
/// `calendar.import` answers with an error entry for the event needing that zone, and the host goes on
/// answering, then ends at end of input.
@Suite("Calendar VTIMEZONE bounds, against the binary", .offCooperativePool)
struct BinaryCalendarZoneTests {
    static let ics = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//probe//EN",
        "BEGIN:VTIMEZONE", "TZID:Minutely",
        "BEGIN:STANDARD", "DTSTART:19700101T000000", "RRULE:FREQ=MINUTELY", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0000", "END:STANDARD",
        "BEGIN:DAYLIGHT", "DTSTART:19700101T000030", "RRULE:FREQ=SECONDLY", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100", "END:DAYLIGHT",
        "END:VTIMEZONE",
        "BEGIN:VEVENT", "UID:probe@example.com", "DTSTART;TZID=Minutely:20260301T100000", "DURATION:PT1H", "SUMMARY:Probe", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    @Test("a VTIMEZONE changing every minute is an error entry, answered at once; host.ping follows; end of input ends the host")
    func minutelyZone() throws {
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory"])
        let params = JSONValue.object(["ics": .string(Self.ics)])
        try host.send(BinaryHarness.request(1, "calendar.import", params.jsonText()))
        let (reply, _) = try host.response(to: 1)
        let result = try #require(reply["result"], "\(reply)")
        #expect(result["created"] == 0)
        #expect(result["errors"]?.arrayValue?.map { $0["index"] } == [0])
        #expect(result["errors"]?.arrayValue?.first?["reason"]?.stringValue?.contains("VTIMEZONE") == true)
        try host.send(BinaryHarness.request(2, "host.ping"))
        #expect(try host.response(to: 2).0["result"] == "pong")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
