/// The members an update changes: each present member replaces the event's; `timeZone: null` makes
/// an event floating and `recurrenceRules: null` stops it repeating.
public struct EventPatch: Sendable, Equatable, Decodable {
    public var title: String?
    public var description: String?
    public var start: LocalDateTime?
    /// Present (`.some`) when the patch sets the zone; `.some(nil)` makes the event floating.
    public var timeZone: String??
    public var duration: EventDuration?
    public var showWithoutTime: Bool?
    public var locations: [String: Location]?
    public var participants: [String: Participant]?
    public var recurrenceRules: [RecurrenceRule]??

    enum CodingKeys: String, CodingKey {
        case title, description, start, timeZone, duration, showWithoutTime, locations, participants, recurrenceRules
    }

    public init(title: String? = nil, description: String? = nil, start: LocalDateTime? = nil, timeZone: String?? = nil,
                duration: EventDuration? = nil, showWithoutTime: Bool? = nil, locations: [String: Location]? = nil,
                participants: [String: Participant]? = nil, recurrenceRules: [RecurrenceRule]?? = nil) {
        self.title = title
        self.description = description
        self.start = start
        self.timeZone = timeZone
        self.duration = duration
        self.showWithoutTime = showWithoutTime
        self.locations = locations
        self.participants = participants
        self.recurrenceRules = recurrenceRules
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        start = try container.decodeIfPresent(LocalDateTime.self, forKey: .start)
        if container.contains(.timeZone) { timeZone = .some(try container.decodeIfPresent(String.self, forKey: .timeZone)) }
        duration = try container.decodeIfPresent(EventDuration.self, forKey: .duration)
        showWithoutTime = try container.decodeIfPresent(Bool.self, forKey: .showWithoutTime)
        locations = try container.decodeIfPresent([String: Location].self, forKey: .locations)
        participants = try container.decodeIfPresent([String: Participant].self, forKey: .participants)
        if container.contains(.recurrenceRules) {
            recurrenceRules = .some(try container.decodeIfPresent([RecurrenceRule].self, forKey: .recurrenceRules))
        }
    }

    /// `event` with every member of the patch applied.
    func applied(to event: CalendarEvent) -> CalendarEvent {
        var event = event
        if let title { event.title = title }
        if let description { event.description = description }
        if let start { event.start = start }
        if let timeZone { event.timeZone = timeZone }
        if let duration { event.duration = duration }
        if let showWithoutTime { event.showWithoutTime = showWithoutTime }
        if let locations { event.locations = locations }
        if let participants { event.participants = participants }
        if let recurrenceRules { event.recurrenceRules = recurrenceRules }
        return event
    }

    /// The members that cannot differ for one occurrence (an override changes what it shows, not
    /// what kind of event it is), by name.
    var eventWideMembers: [String] {
        [timeZone != nil ? "timeZone" : nil, showWithoutTime != nil ? "showWithoutTime" : nil,
         recurrenceRules != nil ? "recurrenceRules" : nil].compactMap { $0 }
    }

    /// The override that records this patch for one occurrence, merged over `existing`.
    func override(merging existing: EventOverride?) -> EventOverride {
        var patch = existing ?? EventOverride()
        patch.excluded = nil
        if let title { patch.title = title }
        if let description { patch.description = description }
        if let start { patch.start = start }
        if let duration { patch.duration = duration }
        if let locations { patch.locations = locations }
        if let participants { patch.participants = participants }
        return patch
    }
}
