import Jansson

/// The checks every event passes before it is stored, each failure a `-32602` naming the member
/// (`prefix` is where the event sits in the params: `event`, `patch`).
enum EventValidation {
    static let maximumTitle = 1_000
    static let maximumText = 100_000
    static let maximumMembers = 500
    static let maximumOverrides = 5_000
    /// The most roles one participant has: what an export writes and an import reads back whole.
    static let maximumRoles = 32

    /// With `unchanged`, the event as stored before an update: the title, description, locations,
    /// participants and rules it kept are not checked again, so an event stored under earlier rules
    /// (a rule RFC 5545 forbids, more than 32 roles) can still be updated in what the patch changes.
    static func check(_ event: CalendarEvent, prefix: String, unchanged stored: CalendarEvent? = nil) throws(JSONFieldError) {
        let p = prefix.isEmpty ? "" : prefix + "."
        try self.stored(event.start, field: p + "start")
        if stored?.title != event.title { try text(event.title, field: p + "title", maximum: maximumTitle) }
        if let description = event.description, stored?.description != description {
            try text(description, field: p + "description", maximum: maximumText)
        }
        if let zone = event.timeZone {
            guard ZoneRules.named(zone) != nil else {
                throw JSONFieldError(field: p + "timeZone", expected: ZoneRules.expected + " or null (floating)", got: JSONFieldError.quote(zone))
            }
        }
        // The parser bounds a client's durations; an imported DURATION or DTEND is bounded here.
        try bounded(event.duration, field: p + "duration")
        if event.showWithoutTime {
            guard event.start.secondOfDay == 0 else {
                throw JSONFieldError(field: p + "start", expected: "a date at midnight (YYYY-MM-DDT00:00:00) for an all-day event",
                                     got: JSONFieldError.quote(event.start.description))
            }
            guard event.duration.isWholeDays, event.duration.days >= 1 else {
                throw JSONFieldError(field: p + "duration", expected: "whole days (P1D, P3D, P1W) for an all-day event",
                                     got: JSONFieldError.quote(event.duration.description))
            }
            guard event.timeZone == nil else {
                throw JSONFieldError(field: p + "timeZone", expected: "null for an all-day event (it is a date, the same in every zone)",
                                     got: JSONFieldError.quote(event.timeZone ?? ""))
            }
        }
        if stored.map({ $0.locations != event.locations || $0.participants != event.participants }) ?? true {
            try people(event.locations, event.participants, prefix: p)
        }
        for (index, rule) in (event.recurrenceRules ?? []).enumerated() where stored?.recurrenceRules != event.recurrenceRules {
            try rule.validate(field: "\(p)recurrenceRules[\(index)]")
            if let until = rule.until { try self.stored(until, field: "\(p)recurrenceRules[\(index)].until") }
        }
        if (event.recurrenceRules?.count ?? 0) > 10 {
            throw JSONFieldError(field: p + "recurrenceRules", expected: "at most 10 rules", got: String(event.recurrenceRules?.count ?? 0))
        }
        try overrides(event, prefix: p)
    }

    private static func overrides(_ event: CalendarEvent, prefix p: String) throws(JSONFieldError) {
        let overrides = event.recurrenceOverrides ?? [:]
        guard overrides.count <= maximumOverrides else {
            throw JSONFieldError(field: p + "recurrenceOverrides", expected: "at most \(maximumOverrides) overrides", got: String(overrides.count))
        }
        for key in overrides.keys.sorted() {
            guard LocalDateTime(key) != nil else {
                throw JSONFieldError(field: p + "recurrenceOverrides", expected: "keys that are occurrence starts, " + LocalDateTime.expected,
                                     got: JSONFieldError.quote(key))
            }
            guard let patch = overrides[key] else { continue }
            try check(patch, key: key, allDay: event.showWithoutTime, prefix: p)
        }
    }

    /// The checks of one override, keyed `key`, of an event (all-day when `allDay`).
    static func check(_ patch: EventOverride, key: String, allDay: Bool, prefix p: String) throws(JSONFieldError) {
        let field = "\(p)recurrenceOverrides.\(key)"
        if let start = patch.start { try stored(start, field: field + ".start") }
        if let title = patch.title { try text(title, field: field + ".title", maximum: maximumTitle) }
        if let description = patch.description { try text(description, field: field + ".description", maximum: maximumText) }
        if let duration = patch.duration { try bounded(duration, field: field + ".duration") }
        if allDay {
            if let start = patch.start, start.secondOfDay != 0 {
                throw JSONFieldError(field: field + ".start", expected: "a date at midnight for an all-day event",
                                     got: JSONFieldError.quote(start.description))
            }
            if let duration = patch.duration, !duration.isWholeDays || duration.days < 1 {
                throw JSONFieldError(field: field + ".duration", expected: "whole days for an all-day event",
                                     got: JSONFieldError.quote(duration.description))
            }
        }
        try people(patch.locations, patch.participants, prefix: field + ".")
    }

    /// Locations and participants: at most ``maximumMembers`` of each, their texts bounded, at most
    /// ``maximumRoles`` roles each.
    private static func people(_ locations: [String: Location]?, _ participants: [String: Participant]?, prefix p: String) throws(JSONFieldError) {
        try members(locations, field: p + "locations") { location, field throws(JSONFieldError) in
            try text(location.name, field: field + ".name", maximum: maximumTitle)
        }
        try members(participants, field: p + "participants") { participant, field throws(JSONFieldError) in
            if let name = participant.name { try text(name, field: field + ".name", maximum: maximumTitle) }
            if let email = participant.email { try text(email, field: field + ".email", maximum: maximumTitle) }
            if let roles = participant.roles, roles.count > maximumRoles {
                throw JSONFieldError(field: field + ".roles", expected: "at most \(maximumRoles) roles", got: String(roles.count))
            }
        }
    }

    /// A time a client writes is read within ``LocalDateTime/years``; one an import works out (a
    /// VTIMEZONE's offset applied to a start near the edge) may fall outside, and stored it could never
    /// be read back: refused, as a client's would be.
    static func stored(_ time: LocalDateTime, field: String) throws(JSONFieldError) {
        guard LocalDateTime(time.description) == time else {
            throw JSONFieldError(field: field, expected: LocalDateTime.expected, got: "a time outside those years")
        }
    }

    static func bounded(_ duration: EventDuration, field: String) throws(JSONFieldError) {
        guard duration.isWithinMaximum else {
            throw JSONFieldError(field: field, expected: EventDuration.expected, got: JSONFieldError.quote(duration.description))
        }
    }

    /// A text of at most `maximum` bytes without U+0000, which a client's JSON is refused for (its
    /// decoder rejects NUL) and an import can make (a percent-encoded `X-SWITCHBOARD-CN` of `a%00b`).
    static func text(_ value: String, field: String, maximum: Int) throws(JSONFieldError) {
        guard value.utf8.count <= maximum else {
            throw JSONFieldError(field: field, expected: "text of at most \(maximum) bytes", got: JSONFieldError.quote(value))
        }
        guard !value.utf8.contains(0) else {
            throw JSONFieldError(field: field, expected: "a string without U+0000 (NUL)", got: "a string with U+0000")
        }
    }

    private static func members<Value>(_ map: [String: Value]?, field: String,
                                       _ check: (Value, String) throws(JSONFieldError) -> Void) throws(JSONFieldError) {
        guard let map else { return }
        guard map.count <= maximumMembers else {
            throw JSONFieldError(field: field, expected: "at most \(maximumMembers) members", got: String(map.count))
        }
        for key in map.keys.sorted() {
            guard !key.isEmpty, key.utf8.count <= 255 else {
                throw JSONFieldError(field: field, expected: "ids of 1...255 bytes", got: JSONFieldError.quote(key))
            }
            if let value = map[key] { try check(value, "\(field).\(key)") }
        }
    }
}
