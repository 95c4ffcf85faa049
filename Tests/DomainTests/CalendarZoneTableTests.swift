@testable import CalendarDomain
import Testing

/// The agenda's zones answer from tables of their offset changes (``ZoneOffsetTable``) instead of
/// asking ICU for every occurrence; the answers must be ICU's, to the second, including wall times
/// in the gaps and folds of DST changes, Lord Howe's half hours and Samoa's skipped day.
@Suite("Calendar zone offset tables")
struct CalendarZoneTableTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata", "UTC"]

    /// 2010-01-01 … 2031-01-01: Samoa's 2011-12-30, and the agenda's reach around today.
    static let lower: Int64 = 1_262_304_000
    static let upper: Int64 = 1_924_992_000

    /// Instants where the offset changes, by ICU, found by a bisection between samples a day apart.
    static func changes(_ zone: ZoneRules) -> [Int64] {
        var found: [Int64] = []
        var at = lower
        while at < upper {
            let next = at + 86_400
            if zone.icuOffset(at: at) != zone.icuOffset(at: next) {
                var low = at, high = next  // offset(low) is the old one, offset(high) the new one
                while high - low > 1 {
                    let middle = (low + high) / 2
                    if zone.icuOffset(at: middle) == zone.icuOffset(at: at) { low = middle } else { high = middle }
                }
                found.append(high)
            }
            at = next
        }
        return found
    }

    @Test("offsets from the table are ICU's, every 3 hours and around each change", arguments: zones)
    func offsetsMatchICU(name: String) throws {
        let plain = try #require(ZoneRules.named(name))
        let table = plain.covering(Self.lower, Self.upper)
        #expect(table.answersFromTable)
        var at = Self.lower
        while at <= Self.upper {
            #expect(table.offset(at: at) == plain.icuOffset(at: at), "\(name) at \(at)")
            at += 3 * 3600
        }
        let changes = Self.changes(plain)
        if name != "UTC" && name != "Asia/Kolkata" { #expect(changes.count > 10) }
        for change in changes {
            for delta: Int64 in [-3601, -1, 0, 1, 3599] {
                #expect(table.offset(at: change + delta) == plain.icuOffset(at: change + delta), "\(name) at \(change + delta)")
            }
        }
    }

    @Test("wall times to instants and back are the same with the table, in gaps and folds too", arguments: zones)
    func instantsMatch(name: String) throws {
        let plain = try #require(ZoneRules.named(name))
        let table = plain.covering(Self.lower, Self.upper)
        for change in Self.changes(plain) {
            // Every quarter hour from a day before the change to a day after, as wall times.
            let wall = plain.local(at: change).seconds
            var local = wall - 86_400
            while local <= wall + 86_400 {
                let time = LocalDateTime(seconds: local)
                #expect(table.instant(of: time) == plain.instant(of: time), "\(name) \(time)")
                local += 900
            }
            for delta: Int64 in [-3600, -1, 0, 1, 1800] {
                #expect(table.local(at: change + delta) == plain.local(at: change + delta))
            }
        }
        // Every day's midnight and a half past two (in many zones' gap) over the span.
        var day = Self.lower / 86_400
        while day * 86_400 < Self.upper {
            for second: Int64 in [0, 9000] {
                let time = LocalDateTime(seconds: day * 86_400 + second)
                #expect(table.instant(of: time) == plain.instant(of: time), "\(name) \(time)")
            }
            day += 1
        }
    }

    /// The resolution of gaps and folds, spelled out (see ``ZoneRules``): a skipped wall time is read
    /// with the offset from before the change, a repeated one is the first of the two.
    @Test("gaps and folds resolve as ZoneRules documents", arguments: [
        ("Europe/Berlin", "2026-03-29T02:30:00", "2026-03-29T01:30:00"),  // gap: 03:30 CEST
        ("Europe/Berlin", "2026-10-25T02:30:00", "2026-10-25T00:30:00"),  // fold: the first, CEST
        ("America/New_York", "2026-03-08T02:30:00", "2026-03-08T07:30:00"),  // gap: 03:30 EDT
        ("America/New_York", "2026-11-01T01:30:00", "2026-11-01T05:30:00"),  // fold: the first, EDT
        ("Australia/Lord_Howe", "2026-10-04T02:15:00", "2026-10-03T15:45:00"),  // half-hour gap: 02:45 +11
        ("Australia/Lord_Howe", "2026-04-05T01:45:00", "2026-04-04T14:45:00"),  // half-hour fold: the first, +11
        ("Pacific/Apia", "2011-12-30T12:00:00", "2011-12-30T22:00:00"),  // the skipped day: read with -10
    ])
    func gapsAndFolds(name: String, wall: String, utc: String) throws {
        let plain = try #require(ZoneRules.named(name))
        let time = try #require(LocalDateTime(wall))
        let expected = try #require(LocalDateTime(utc)).seconds
        #expect(plain.instant(of: time) == expected)
        #expect(plain.covering(Self.lower, Self.upper).instant(of: time) == expected)
        #expect(plain.covering(expected - 86_400, expected + 86_400).instant(of: time) == expected)
    }

    @Test("outside its table a zone asks ICU, and a later span grows the kept table")
    func outsideTheTable() throws {
        let plain = try #require(ZoneRules.named("Europe/Berlin"))
        let narrow = plain.covering(1_767_225_600, 1_767_225_600 + 86_400)  // 2026-01-01, and the kept margin
        let far: Int64 = 1_435_708_800  // 2015-07-01: beyond the margin
        #expect(narrow.offset(at: far) == plain.icuOffset(at: far))
        let wide = plain.covering(far, far + 86_400)
        #expect(wide.answersFromTable)
        #expect(wide.offset(at: far) == 7200)
        #expect(wide.offset(at: 1_767_225_600) == 3600)
    }
}
