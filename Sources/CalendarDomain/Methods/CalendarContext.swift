import DomainMethods
import Jansson
import SwitchboardCore

/// What the calendar's methods share: the service, the clock that says what "today" is, the zone an
/// agenda uses when a request names none, and the folders `calendar.import` may read.
public struct CalendarContext: Sendable {
    /// The service, opened on the first calendar call when the backend opens it lazily.
    public var service: LazyService<any CalendarService>
    public var clock: any WallClock
    /// `--time-zone`, or `nil` for the host's zone.
    public var defaultZone: String?
    public var readRoots: ReadRoots
    /// The agenda's text of each event, kept between answers.
    let details = EventDetailsCache()
    /// Awaited just before a long calendar computation starts (tests hold it there to cancel it).
    var startProbe: (@Sendable () async -> Void)?
    /// Occurrences of repeating events one agenda expands, at most (``AgendaBuilder/maximumOccurrences``; tests lower it).
    var agendaOccurrenceLimit = AgendaBuilder.maximumOccurrences

    public init(service: LazyService<any CalendarService>, clock: any WallClock = SystemClock(), defaultZone: String? = nil,
                readRoots: ReadRoots = .empty) {
        self.service = service
        self.clock = clock
        self.defaultZone = defaultZone
        self.readRoots = readRoots
    }

    /// A context whose service is open already.
    public init(calendar: any CalendarService, clock: any WallClock = SystemClock(), defaultZone: String? = nil,
                readRoots: ReadRoots = .empty) {
        self.init(service: LazyService(calendar), clock: clock, defaultZone: defaultZone, readRoots: readRoots)
    }

    /// The service (opening it first on the first call).
    var calendar: any CalendarService {
        get async throws { try await service.get() }
    }

    /// Runs before a long computation (an agenda's expansions, an import's reading) starts.
    func starting() async {
        await startProbe?()
    }

    /// How far from today an agenda may reach, in days, either side.
    public static let reachDays: Int64 = 1000

    /// The zone `name` names, else the default; an unknown name is `-32602` naming `timeZone`.
    func zone(_ name: String?) throws(JSONFieldError) -> ZoneRules {
        guard let name = name ?? defaultZone else { return ZoneRules.host() }
        guard let zone = ZoneRules.named(name) else {
            let origin = defaultZone == name ? " (the host's --time-zone)" : ""
            throw JSONFieldError(field: "timeZone", expected: ZoneRules.expected + origin, got: JSONFieldError.quote(name))
        }
        return zone
    }

    /// Today in `zone`, by the clock.
    func today(in zone: ZoneRules) -> CalendarDate {
        zone.local(at: Self.floorSeconds(clock.now())).date
    }

    /// Checks that `date` (the param `field`) is within ``reachDays`` of today in `zone`.
    func checkReach(_ date: CalendarDate, field: String, zone: ZoneRules) throws(JSONFieldError) {
        let today = today(in: zone)
        let reach = today.adding(days: -Self.reachDays)...today.adding(days: Self.reachDays)
        guard reach.contains(date) else {
            throw JSONFieldError(field: field, expected: "a date within \(Self.reachDays) days of today (\(reach.lowerBound)...\(reach.upperBound))",
                                 got: JSONFieldError.quote(date.description))
        }
    }

    static func floorSeconds(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    }
}
