import FuzzSupport
import Jansson

/// iCalendar text through `calendar.import` (libical's parser, then the reader that turns
/// components into events), then `calendar.export` of what was stored and a second import of that.
///
/// Properties: it never traps or hangs; the import is answered with a result or a client error, never
/// an internal error; and what was imported exports to text that a fresh host imports without
/// errors, creating as many events, and exports again to the same text.
enum CalendarImportFuzz: FuzzTarget {
    static let name = "calendar-import"
    static let summary = "calendar.import of fuzzed .ics text (libical + ICalendarReader), export round trip"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        let params = Array(JSONValue.object(["ics": .string(text)]).jsonText().utf8)
        let answers = HostWorld.exchange([("calendar.import", params), ("calendar.export", Array("{}".utf8))])
        guard let created = answers[0]?["result"]?["created"]?.int64Value, created > 0,
              let exported = answers[1]?["result"]?["ics"]?.stringValue
        else { return }
        let again = Array(JSONValue.object(["ics": .string(exported)]).jsonText().utf8)
        let answers2 = HostWorld.exchange([("calendar.import", again), ("calendar.export", Array("{}".utf8))])
        let reimport = answers2[0]?["result"]
        require(reimport?["errors"]?.arrayValue?.isEmpty == true && reimport?["created"]?.int64Value == created,
                "the export of \(created) imported events does not import again unchanged: \(reimport?.jsonText() ?? "no answer")\n\(exported)")
        let second = answers2[1]?["result"]?["ics"]?.stringValue
        require(second == exported, "the export of the export's import differs:\n\(exported)\n---\n\(second ?? "no answer")")
    }
}
