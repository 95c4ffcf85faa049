import Jansson
import JSONRPC
import SwitchboardCore

/// `calendar.import {path | ics}` → `{created, updated, unchanged, errors, state}`: loads iCalendar
/// text (a file the host may read, see ``ReadRoots``, or given inline) through libical. Events are
/// keyed by UID: importing again updates rather than duplicates. A VEVENT that cannot be taken is
/// reported by its position and line and the rest kept (``ICalendarReader``); a text without
/// BEGIN:VCALENDAR is `-32602`.
public enum CalendarImport: RPCMethod {
    public static let name = "calendar.import"
    public static let summary = "Imports iCalendar (.ics) events from a file or inline, updating by UID."
    public static let runsLong = true

    /// The largest iCalendar text an import reads.
    public static let maxBytes = 32 << 20

    public struct Params: Decodable, Sendable {
        public var path: String?
        public var ics: String?
    }

    public struct Result: Encodable, Sendable {
        public var created: Int
        public var updated: Int
        public var unchanged: Int
        public var errors: [ICalendarProblem]
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let text = try source(params, roots: context.readRoots)
        await context.starting()
        let outcome: ICalendarReader.Outcome
        do {
            outcome = try ICalendarReader.read(text)
        } catch {
            // Not a word of the text: it may be any file the host can read.
            throw JSONFieldError(field: params.path == nil ? "ics" : "path", expected: "iCalendar text (BEGIN:VCALENDAR … END:VCALENDAR)",
                                 got: "text without a BEGIN:VCALENDAR line")
        }
        try Task.checkCancellation()  // the reader stops early when cancelled
        let committed = try await context.calendar.put(outcome.events, replacing: true)
        let count = { (kind: PutOutcome) in committed.value.filter { $0 == kind }.count }
        return Result(created: count(.created), updated: count(.updated), unchanged: count(.unchanged),
                      errors: outcome.problems.map { ICalendarProblem(index: $0.index, line: $0.line, reason: $0.reason) },
                      state: committed.state)
    }

    /// The text `params` names: exactly one of a file and inline text.
    static func source(_ params: Params, roots: ReadRoots) throws(JSONFieldError) -> String {
        switch (params.path, params.ics) {
        case (let path?, nil):
            func failure(_ expected: String) -> JSONFieldError {
                JSONFieldError.outOfRange(field: "path", expected: expected, got: path)
            }
            let bytes: [UInt8]
            do {
                bytes = try roots.open(path).readAll(limit: maxBytes)
            } catch {
                switch error {
                case .refused: throw failure("a file inside the folders this host lets requests read (--allow-read)")
                case .invalidPath(let reason): throw failure("a file path (\(reason))")
                case .unreadable(let reason): throw failure("a readable file (\(reason))")
                }
            }
            // A fold may fall inside a character (RFC 5545 §3.1): UTF-8 once unfolded is UTF-8.
            guard !bytes.contains(0),
                  let text = String(validating: bytes, as: UTF8.self) ?? String(validating: ICalendarFolds.joiningCharacters(bytes), as: UTF8.self) else {
                throw failure("a UTF-8 iCalendar file without NUL bytes")
            }
            return text
        case (nil, let text?):
            guard text.utf8.count <= maxBytes else {
                throw JSONFieldError(field: "ics", expected: "iCalendar text of at most \(maxBytes >> 20) MiB", got: "\(text.utf8.count) bytes")
            }
            return text
        default:
            throw JSONFieldError(field: "", expected: "exactly one of path and ics", got: params.path == nil ? "neither" : "both")
        }
    }
}

/// A VEVENT an import could not take, or took without something: its position among the file's
/// VEVENTs (from 0), the line its BEGIN:VEVENT is on (from 1), and why — never the file's text or a UID.
public struct ICalendarProblem: Sendable, Equatable, Encodable {
    public var index: Int
    public var line: Int?
    public var reason: String
}

/// `calendar.export {from?, to?}` → `{ics, count, state}`: the events (those that may show on a day of
/// `from`...`to` when given) as iCalendar text through libical, which Thunderbird and other
/// calendars load, and `calendar.import` loads back.
public enum CalendarExport: RPCMethod {
    public static let name = "calendar.export"
    public static let summary = "Exports events as iCalendar (.ics) text."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var from: CalendarDate?
        public var to: CalendarDate?
    }

    public struct Result: Encodable, Sendable {
        public var ics: String
        public var count: Int
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let snapshot: EventSnapshot
        switch (params.from, params.to) {
        case (nil, nil):
            snapshot = try await context.calendar.allEvents()
        case (let from?, let to?):
            guard to >= from else {
                throw JSONFieldError(field: "to", expected: "a date on or after from (\(from))", got: JSONFieldError.quote(to.description))
            }
            snapshot = try await context.calendar.events(touching: from...to)
        default:
            throw JSONFieldError(field: params.from == nil ? "from" : "to", expected: "both from and to, or neither", got: JSONFieldError.nothing)
        }
        return Result(ics: ICalendarWriter.write(snapshot.events, stamp: context.clock.now()), count: snapshot.events.count, state: snapshot.state)
    }
}
