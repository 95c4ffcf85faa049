import Jansson

/// The rules of `calendar.update` and `calendar.delete` on one stored event, as pure functions the
/// services run inside their write (so the event read and the event written are the same version).
enum EventEditing {
    /// `event` updated by `patch` for `scope` at the occurrence `recurrenceId`; `newID` names the event
    /// a "thisAndFollowing" split creates.
    static func update(_ event: CalendarEvent, patch: EventPatch, scope: EditScope, recurrenceId: LocalDateTime?,
                       newID: String) throws(JSONFieldError) -> EventChange {
        switch try target(event, scope: scope, recurrenceId: recurrenceId) {
        case nil:
            let updated = patch.applied(to: event)
            try EventValidation.check(updated, prefix: "patch", unchanged: event)
            return EventChange(updated: updated)
        case let key? where scope == .this:
            if let member = patch.eventWideMembers.first {
                throw JSONFieldError(field: "patch.\(member)", expected: "no \(member) with scope \"this\" (use \"all\" or \"thisAndFollowing\")",
                                     got: "a value")
            }
            var updated = event
            var overrides = updated.recurrenceOverrides ?? [:]
            overrides[key.description] = patch.override(merging: overrides[key.description])
            updated.recurrenceOverrides = overrides
            try EventValidation.check(updated, prefix: "patch", unchanged: event)
            return EventChange(updated: updated)
        case let key?:
            let (head, tail) = split(event, at: key, newID: newID)
            var following = patch.applied(to: tail)
            let shift = (patch.start ?? key).seconds - key.seconds
            following.recurrenceOverrides = tail.recurrenceOverrides.map { overrides in
                Dictionary(uniqueKeysWithValues: overrides.map { (LocalDateTime($0.key)?.adding(seconds: shift).description ?? $0.key, $0.value) })
            }
            try EventValidation.check(following, prefix: "patch")
            return EventChange(updated: head, created: following)
        }
    }

    /// `event` without the occurrences `scope` names at `recurrenceId` (`updated: nil` when none is left).
    static func delete(_ event: CalendarEvent, scope: EditScope, recurrenceId: LocalDateTime?) throws(JSONFieldError) -> EventChange {
        switch try target(event, scope: scope, recurrenceId: recurrenceId) {
        case nil:
            return EventChange(updated: nil)
        case let key? where scope == .this:
            var updated = event
            var overrides = updated.recurrenceOverrides ?? [:]
            overrides[key.description] = .exclusion
            updated.recurrenceOverrides = overrides
            return EventChange(updated: updated)
        case let key?:
            return EventChange(updated: split(event, at: key, newID: "").head)
        }
    }

    /// The occurrence an edit applies to, or `nil` for the whole event (scope `all`, or the first
    /// occurrence with "thisAndFollowing").
    private static func target(_ event: CalendarEvent, scope: EditScope, recurrenceId: LocalDateTime?) throws(JSONFieldError) -> LocalDateTime? {
        switch (scope, recurrenceId) {
        case (.all, nil):
            return nil
        case (.all, let key?):
            // A client that meant one occurrence must not change (or delete) the whole series unsaid.
            throw JSONFieldError(field: "recurrenceId",
                                 expected: "no recurrenceId with scope \"all\" (the default): give scope \"this\" or \"thisAndFollowing\" to change one occurrence or it and the rest",
                                 got: JSONFieldError.quote(key.description))
        case (_, nil):
            throw JSONFieldError(field: "recurrenceId", expected: "the start of the occurrence scope \"\(scope.rawValue)\" applies to",
                                 got: JSONFieldError.nothing)
        case (_, let key?):
            let found = event.isRecurring ? isOccurrence(key, of: event) : false
            guard found != nil else {
                // The bound stopped the look-up before `key`: it may be an occurrence; "not one" would be false.
                throw JSONFieldError(field: "recurrenceId",
                                     expected: "an occurrence switchboard can look up: a rule of event \(JSONFieldError.excerpt(event.id)) passes so seldom that finding whether this is one of its occurrences takes too much work",
                                     got: JSONFieldError.quote(key.description))
            }
            guard found == true else {
                throw JSONFieldError(field: "recurrenceId", expected: "the original start of an occurrence of event \(JSONFieldError.excerpt(event.id))",
                                     got: JSONFieldError.quote(key.description))
            }
            guard scope == .thisAndFollowing, key <= event.start else { return key }
            // From the first occurrence on is the whole event. An override may add occurrences before the
            // start: from one of them on is the whole event too when none comes before it; else no split
            // keeps the earlier ones alone (the event up to it would have none of its own).
            guard key < event.start, hasAddedOccurrence(before: key, in: event) else { return nil }
            throw JSONFieldError(field: "recurrenceId",
                                 expected: "for scope \"thisAndFollowing\", an occurrence from the event's start (\(event.start)) on, or its earliest",
                                 got: JSONFieldError.quote(key.description))
        }
    }

    /// True when an override of `event` adds an occurrence before `key` (one before the event's start).
    private static func hasAddedOccurrence(before key: LocalDateTime, in event: CalendarEvent) -> Bool {
        (event.recurrenceOverrides ?? [:]).contains { name, override in
            override.excluded != true && (LocalDateTime(name).map { $0 < key } ?? false)
        }
    }

    /// True when `key` is an occurrence's original start: the first, one a rule makes, or one an override adds;
    /// `nil` when a rule's look-up was stopped by its bound before reaching `key` (a rule that seldom passes).
    static func isOccurrence(_ key: LocalDateTime, of event: CalendarEvent) -> Bool? {
        if key == event.start || event.recurrenceOverrides?[key.description] != nil { return true }
        var found = false, stopped = false
        for rule in event.recurrenceRules ?? [] where !found {
            let expansion = RecurrenceExpansion.starts(of: rule, from: event.start, in: key...key) { _ in found = true; return false }
            if expansion != .complete { stopped = true }
        }
        return found ? true : stopped ? nil : false
    }

    /// The occurrences `rule` counts before `key`: the start always (RFC 5545: it counts as the first
    /// occurrence, made by the rule or not), and those the rule makes after it.
    private static func occurrences(of rule: RecurrenceRule, from start: LocalDateTime, before key: LocalDateTime) -> Int {
        guard key > start else { return 0 }
        var made = 0, startMade = false
        RecurrenceExpansion.starts(of: rule, from: start, in: start...key.adding(seconds: -1)) { local in
            made += 1
            startMade = startMade || local == start
            return true
        }
        return made + (startMade ? 0 : 1)
    }

    /// The event up to `key` (its rules end just before it) and from `key` on (a new event `newID`).
    private static func split(_ event: CalendarEvent, at key: LocalDateTime, newID: String) -> (head: CalendarEvent, tail: CalendarEvent) {
        var head = event, tail = event
        tail.id = newID
        tail.start = key
        head.recurrenceRules = event.recurrenceRules?.map { rule in
            var rule = rule
            if rule.count != nil {
                rule.count = max(occurrences(of: rule, from: event.start, before: key), 1)
            } else {
                rule.until = key.adding(seconds: -1)
            }
            return rule
        }
        tail.recurrenceRules = event.recurrenceRules?.map { rule in
            var rule = rule
            if let count = rule.count {
                rule.count = max(count - occurrences(of: rule, from: event.start, before: key), 1)
            }
            return rule
        }
        let overrides = event.recurrenceOverrides ?? [:]
        let earlier = overrides.filter { (LocalDateTime($0.key) ?? key) < key }
        let later = overrides.filter { (LocalDateTime($0.key) ?? key) >= key }
        head.recurrenceOverrides = earlier.isEmpty ? nil : earlier
        tail.recurrenceOverrides = later.isEmpty ? nil : later
        return (head, tail)
    }
}
