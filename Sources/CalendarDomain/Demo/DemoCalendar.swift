import SwitchboardCore

/// The demo calendar: a year of a person's events around a given day — recurring meetings (some in
/// other zones), all-day holidays and birthdays, multi-day trips, flights across zones, meetings
/// with many participants, floating reminders — plus `extra` events spread around it (one in thirty
/// repeating weekly a few times).
/// Deterministic: the same day and count give the same events.
public enum DemoCalendar {
    /// How many one-off events the demo holds besides the fixed ones, by default.
    public static let defaultExtra = 300

    public static func events(around today: CalendarDate, extra: Int = defaultExtra) -> [CalendarEvent] {
        let yearAgo = today.adding(days: -182)
        return recurring(from: monday(onOrBefore: yearAgo)) + holidays(from: yearAgo) + trips(around: today)
            + oneOffs(around: today, count: extra)
    }

    static func monday(onOrBefore date: CalendarDate) -> CalendarDate {
        // 1970-01-01 was a Thursday: day 4 is a Monday.
        date.adding(days: -(((date.dayNumber - 4) % 7 + 7) % 7))
    }

    static func at(_ date: CalendarDate, _ hour: Int64, _ minute: Int64 = 0) -> LocalDateTime {
        date.midnight.adding(seconds: hour * 3600 + minute * 60)
    }

    static func people(_ count: Int, from offset: Int = 0) -> [String: Participant] {
        var result: [String: Participant] = [:]
        for index in 0..<count {
            let (first, last) = (firstNames[(index + offset) % firstNames.count], lastNames[(index * 7 + offset) % lastNames.count])
            result["p\(index + 1)"] = Participant(name: "\(first) \(last)", email: "\(first.lowercased()).\(last.lowercased())@example.com",
                                                  roles: [index == 0 ? "owner" : "attendee": true])
        }
        return result
    }

    static func place(_ name: String) -> [String: Location] { ["l1": Location(name: name)] }

    static func recurring(from monday: CalendarDate) -> [CalendarEvent] {
        let weekdays = ([.mo, .tu, .we, .th, .fr] as [RecurrenceRule.Weekday]).map { RecurrenceRule.NDay(day: $0) }
        let rentDay = CalendarDate(dayNumber: firstOfMonth(after: monday))
        var standUp = CalendarEvent(id: "demo-standup", title: "Team stand-up", start: at(monday, 9, 30), timeZone: "Europe/Berlin",
                                    duration: EventDuration(seconds: 900), locations: place("Room Spree"), participants: people(6),
                                    recurrenceRules: [RecurrenceRule(frequency: .weekly, byDay: weekdays)])
        standUp.recurrenceOverrides = [
            at(monday.adding(days: 21), 9, 30).description: .exclusion,
            at(monday.adding(days: 44), 9, 30).description: EventOverride(title: "Team stand-up (moved)", start: at(monday.adding(days: 44), 11)),
        ]
        return [
            standUp,
            CalendarEvent(id: "demo-planning", title: "Sprint planning", start: at(monday, 10, 30), timeZone: "Europe/Berlin",
                          duration: EventDuration(seconds: 7200), locations: place("Room Havel"), participants: people(9, from: 3),
                          recurrenceRules: [RecurrenceRule(frequency: .weekly, interval: 2, byDay: [.init(day: .mo)])]),
            CalendarEvent(id: "demo-one-on-one", title: "1:1 with Priya", start: at(monday.adding(days: 1), 11), timeZone: "America/New_York",
                          duration: EventDuration(seconds: 1800), participants: people(2, from: 11),
                          recurrenceRules: [RecurrenceRule(frequency: .weekly, byDay: [.init(day: .tu)])]),
            CalendarEvent(id: "demo-sydney-sync", title: "Sync with the Sydney team", start: at(monday.adding(days: 3), 8),
                          timeZone: "Australia/Sydney", duration: EventDuration(seconds: 3600), participants: people(5, from: 17),
                          recurrenceRules: [RecurrenceRule(frequency: .weekly, byDay: [.init(day: .th)])]),
            CalendarEvent(id: "demo-all-hands", title: "All-hands", start: at(monday.adding(days: 3), 17), timeZone: "Europe/London",
                          duration: EventDuration(seconds: 3600), locations: place("Auditorium"), participants: people(60),
                          recurrenceRules: [RecurrenceRule(frequency: .monthly, byDay: [.init(day: .th, nthOfPeriod: 1)])]),
            CalendarEvent(id: "demo-board", title: "Quarterly board review", start: at(monday.adding(days: 4), 15), timeZone: "Europe/Berlin",
                          duration: EventDuration(seconds: 10_800), participants: people(12, from: 30),
                          recurrenceRules: [RecurrenceRule(frequency: .monthly, byDay: [.init(day: .fr, nthOfPeriod: -1)],
                                                           byMonth: ["3", "6", "9", "12"])]),
            CalendarEvent(id: "demo-vitamins", title: "Take vitamins", start: at(monday, 8), timeZone: nil, duration: .zero,
                          recurrenceRules: [RecurrenceRule(frequency: .daily, count: 365)]),
            CalendarEvent(id: "demo-rent", title: "Pay rent", start: rentDay.midnight, timeZone: nil, duration: EventDuration(days: 1),
                          showWithoutTime: true, recurrenceRules: [RecurrenceRule(frequency: .monthly, byMonthDay: [1])]),
        ]
    }

    static func firstOfMonth(after date: CalendarDate) -> Int64 {
        let (year, month, _) = date.components
        return (CalendarDate(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) ?? date).dayNumber
    }

    static func holidays(from start: CalendarDate) -> [CalendarEvent] {
        let (year, _, _) = start.components
        let fixed: [(String, Int64, Int64)] = [
            ("New Year's Day", 1, 1), ("Labour Day", 5, 1), ("Day of German Unity", 10, 3), ("Christmas Eve", 12, 24),
            ("Christmas Day", 12, 25), ("Boxing Day", 12, 26), ("New Year's Eve", 12, 31), ("Leap day", 2, 29),
        ]
        var events = fixed.compactMap { name, month, day -> CalendarEvent? in
            // The first year from `start` that has the date (29 Feb only in leap years).
            let first = (year...(year + 8)).lazy.compactMap { CalendarDate(year: $0, month: month, day: day) }.first { $0 >= start }
            guard let first else { return nil }
            return CalendarEvent(id: "demo-holiday-\(month)-\(day)", title: name, start: first.midnight, timeZone: nil,
                                 duration: EventDuration(days: 1), showWithoutTime: true,
                                 recurrenceRules: [RecurrenceRule(frequency: .yearly)])
        }
        for (index, person) in ["Ana Souza", "Jonas Becker", "Mei Tanaka", "Ørjan Lie"].enumerated() {
            let date = start.adding(days: Int64(37 + index * 83))
            events.append(CalendarEvent(id: "demo-birthday-\(index + 1)", title: "\(person)'s birthday", start: date.midnight,
                                        timeZone: nil, duration: EventDuration(days: 1), showWithoutTime: true,
                                        recurrenceRules: [RecurrenceRule(frequency: .yearly)]))
        }
        return events
    }

    static func trips(around today: CalendarDate) -> [CalendarEvent] {
        let lisbon = today.adding(days: 12)
        let tokyo = today.adding(days: 47)
        return [
            CalendarEvent(id: "demo-trip-lisbon", title: "Holiday in Lisbon", start: lisbon.midnight, timeZone: nil,
                          duration: EventDuration(days: 5), showWithoutTime: true, locations: place("Lisbon")),
            CalendarEvent(id: "demo-flight-lisbon", title: "Flight BER → LIS", start: at(lisbon, 7, 5), timeZone: "Europe/Berlin",
                          duration: EventDuration(seconds: 13_500), locations: place("BER Terminal 1")),
            CalendarEvent(id: "demo-flight-tokyo", title: "Flight FRA → HND", start: at(tokyo, 21, 15), timeZone: "Europe/Berlin",
                          duration: EventDuration(seconds: 47_700), locations: place("Frankfurt Airport")),
            CalendarEvent(id: "demo-conference-tokyo", title: "Conference in Tokyo", start: at(tokyo.adding(days: 2), 9),
                          timeZone: "Asia/Tokyo", duration: EventDuration(days: 2, seconds: 32_400), locations: place("Tokyo Big Sight"),
                          participants: people(40, from: 5)),
            CalendarEvent(id: "demo-night-release", title: "Release night", start: at(today.adding(days: 5), 22), timeZone: "Europe/Berlin",
                          duration: EventDuration(seconds: 14_400), participants: people(4, from: 9)),
            CalendarEvent(id: "demo-kolkata-review", title: "Design review with Kolkata", start: at(today.adding(days: 3), 15, 30),
                          timeZone: "Asia/Kolkata", duration: EventDuration(seconds: 3600), participants: people(7, from: 21)),
        ]
    }

    static func oneOffs(around today: CalendarDate, count: Int) -> [CalendarEvent] {
        var random = SplitMix64(seed: 0xCA1E_2DA7)
        let reach = Int64(min(1000, max(182, count / 10)))
        let zones = ["Europe/Berlin", "Europe/Berlin", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/London"]
        let kinds = ["Dentist", "Dinner with friends", "Call with the bank", "Yoga", "Haircut", "Coffee with a candidate",
                     "Parent-teacher meeting", "Car service", "Concert", "Lunch with the design team", "Interview", "Book club"]
        return (0..<max(count, 0)).map { index in
            let date = today.adding(days: Int64(random.next(below: Int(2 * reach + 1))) - reach)
            let hour = Int64(8 + random.next(below: 12)), minute = Int64(15 * random.next(below: 4))
            let allDay = random.chance(5)
            // One in thirty repeats for a while, as a course or a series of appointments does.
            let repeats = random.chance(3) ? [RecurrenceRule(frequency: .weekly, count: 4 + random.next(below: 17))] : nil
            return CalendarEvent(
                id: "demo-event-\(index + 1)", title: kinds[random.next(below: kinds.count)],
                start: allDay ? date.midnight : at(date, hour, minute), timeZone: allDay ? nil : zones[random.next(below: zones.count)],
                duration: allDay ? EventDuration(days: 1) : EventDuration(seconds: Int64(30 + 30 * random.next(below: 4)) * 60),
                showWithoutTime: allDay, locations: random.chance(50) ? place("Room \(random.next(below: 40) + 1)") : nil,
                participants: random.chance(40) ? people(1 + random.next(below: 8), from: index) : nil, recurrenceRules: repeats)
        }
    }

    static let firstNames = ["Ana", "Jonas", "Mei", "Ørjan", "Priya", "Kwame", "Lucía", "Noah", "Fatima", "Élodie", "Sven", "Aiko",
                             "Mateo", "Zanele", "Olu", "Grace", "Dmitri", "Sofía", "Liam", "Hana"]
    static let lastNames = ["Souza", "Becker", "Tanaka", "Lie", "Nair", "Mensah", "García", "Schmidt", "Haddad", "Dubois", "Larsen",
                            "Sato", "Rossi", "Dlamini", "Adeyemi", "Kim", "Ivanov", "López", "Walsh", "Novak"]
}

extension DemoCalendar {
    /// How many events the demo has besides the one-off ones.
    public static let fixedCount = events(around: CalendarDate(dayNumber: 20_000), extra: 0).count
}
