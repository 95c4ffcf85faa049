import Jansson
import JSONRPC
import SwitchboardCore

/// `calendar.agenda {from, to, timeZone?}` → `{timeZone, from, to, days, state}`: every calendar day
/// of the zone from `from` to `to` (empty ones too), each with its events (``AgendaBuilder``).
/// Both dates lie within 1000 days of today; `to` is not before `from`. Where events (each occurrence
/// of a repeating one counted) yield more than ``AgendaBuilder/maximumOccurrences`` occurrences, the answer says from which day on it
/// lacks some (`truncated`).
public enum CalendarAgenda: RPCMethod {
    public static let name = "calendar.agenda"
    public static let summary = "Lists every day of a date range in a time zone, each with its events."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var from: CalendarDate
        public var to: CalendarDate
        public var timeZone: String?
    }

    /// Written as text by ``AgendaText`` (a 2001-day agenda holds 15,000 entries).
    public struct Result: JSONTextEncodable, Sendable {
        public var timeZone: String
        public var from: CalendarDate
        public var to: CalendarDate
        public var state: String
        /// The days and their entries, all in one array.
        let layout: AgendaLayout

        /// Where the agenda was cut, when it was.
        public var truncated: AgendaTruncation? { layout.truncation }
        /// The calendar's details text kept between answers.
        let details: EventDetailsCache

        /// Every day from `from` to `to` with its events.
        public var days: [AgendaDay] { layout.days }

        enum CodingKeys: String, CodingKey {
            case timeZone, from, to, days, state, truncated
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(timeZone, forKey: .timeZone)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(days, forKey: .days)
            try container.encode(state, forKey: .state)
            try container.encodeIfPresent(truncated, forKey: .truncated)
        }

        public func writeJSON(into text: inout [UInt8]) throws {
            var writer = AgendaText(known: details.details(at: state))
            writer.write(self, into: &text)
            details.keep(writer.written, at: state)
        }
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let zone = try context.zone(params.timeZone)
        try context.checkReach(params.from, field: "from", zone: zone)
        try context.checkReach(params.to, field: "to", zone: zone)
        guard params.to >= params.from else {
            throw JSONFieldError(field: "to", expected: "a date on or after from (\(params.from))", got: JSONFieldError.quote(params.to.description))
        }
        let snapshot = try await context.calendar.events(touching: params.from...params.to)
        await context.starting()
        let builder = AgendaBuilder(zone: zone, from: params.from, to: params.to, occurrenceLimit: context.agendaOccurrenceLimit)
        let layout = try builder.layout(snapshot.events)
        return Result(timeZone: zone.identifier, from: params.from, to: params.to, state: snapshot.state, layout: layout,
                      details: context.details)
    }
}

/// `calendar.day {date, timeZone?}` → `{date, timeZone, lengthMinutes, events, state}`: one day of the agenda.
public enum CalendarDay: RPCMethod {
    public static let name = "calendar.day"
    public static let summary = "Lists one day's events in a time zone."

    public struct Params: Decodable, Sendable {
        public var date: CalendarDate
        public var timeZone: String?
    }

    public struct Result: Encodable, Sendable {
        public var date: CalendarDate
        public var timeZone: String
        public var lengthMinutes: Int64
        public var events: [AgendaEntry]
        public var state: String
        /// Where the day was cut (``AgendaTruncation``), when it was.
        public var truncated: AgendaTruncation?
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let zone = try context.zone(params.timeZone)
        try context.checkReach(params.date, field: "date", zone: zone)
        let snapshot = try await context.calendar.events(touching: params.date...params.date)
        await context.starting()
        let builder = AgendaBuilder(zone: zone, from: params.date, to: params.date, occurrenceLimit: context.agendaOccurrenceLimit)
        let layout = try builder.layout(snapshot.events)
        let day = layout.days.first ?? AgendaDay(date: params.date, lengthMinutes: 0, events: [])
        return Result(date: params.date, timeZone: zone.identifier, lengthMinutes: day.lengthMinutes, events: day.events, state: snapshot.state,
                      truncated: layout.truncation)
    }
}
