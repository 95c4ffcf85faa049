import Foundation
import Synchronization

/// One zone's UTC offsets over a span of instants, as a list of changes: an offset is then found by a
/// bisection over a dozen numbers instead of an ICU call. An agenda of 2001 days asks for the offset
/// some 60,000 times; the table is built with a few dozen ICU calls and kept (``ZoneOffsetTables``).
///
/// Built from ICU's own transitions (`nextDaylightSavingTimeTransition(after:)`, which ICU answers
/// with every change of the offset, standard or daylight) and then checked against ICU: each change
/// is an instant where the offset differs from the second before, and a sample every week of the span
/// has the offset the table says. A table that fails either check is not made (the zone keeps asking
/// ICU), so the table never answers other than ``ZoneRules/icuOffset(at:)`` would, short of two
/// changes within a week that cancel out (no zone has them).
final class ZoneOffsetTable: Sendable {
    /// The instants covered: `lower...upper`.
    let lower: Int64
    let upper: Int64
    /// `changes[i]` is the first instant at which `offsets[i + 1]` holds; `offsets[0]` holds from `lower`.
    private let changes: [Int64]
    private let offsets: [Int32]

    private init(lower: Int64, upper: Int64, changes: [Int64], offsets: [Int32]) {
        self.lower = lower
        self.upper = upper
        self.changes = changes
        self.offsets = offsets
    }

    /// The table of `zone` over `lower...upper`, or `nil` when ICU's transitions do not check out.
    static func make(_ zone: TimeZone, lower: Int64, upper: Int64) -> ZoneOffsetTable? {
        func icu(_ instant: Int64) -> Int32 { Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant)))) }
        var changes: [Int64] = [], offsets: [Int32] = [icu(lower)]
        var at = lower
        while let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(at))) {
            let seconds = next.timeIntervalSince1970
            guard seconds.isFinite, seconds > Double(at) else { return nil }
            let instant = Int64(seconds.rounded(.up))
            guard instant <= upper else { break }
            let offset = icu(instant)
            guard icu(instant - 1) == offsets[offsets.count - 1] else { return nil }
            if offset != offsets[offsets.count - 1] {
                changes.append(instant)
                offsets.append(offset)
            }
            at = instant
        }
        let table = ZoneOffsetTable(lower: lower, upper: upper, changes: changes, offsets: offsets)
        var sample = lower
        while sample <= upper {
            guard table.offset(at: sample) == Int64(icu(sample)) else { return nil }
            sample += 7 * 86_400
        }
        guard table.offset(at: upper) == Int64(icu(upper)) else { return nil }
        return table
    }

    /// The offset at `instant`, which must lie in `lower...upper`.
    @inline(__always)
    func offset(at instant: Int64) -> Int64 {
        // Few changes (two a year): a forward scan beats a bisection's branches.
        var index = 0
        let count = changes.count
        while index < count, changes[index] <= instant { index += 1 }
        return Int64(offsets[index])
    }

    /// True when `instant` is covered.
    @inline(__always)
    func covers(_ instant: Int64) -> Bool { instant >= lower && instant <= upper }
}

/// The tables made for one zone, kept for later requests: one table covering every span asked so
/// far. The first covers the span asked alone (a fresh process's one agenda checks no more weeks
/// than it shows); a span beyond it makes a new one covering both and ``margin`` either side.
final class ZoneOffsetTables: Sendable {
    private struct Kept {
        var table: ZoneOffsetTable?
        /// ICU's transitions did not check out: ask ICU every time.
        var refused = false
    }

    private let kept = Mutex(Kept())

    /// Instants kept beyond a span asked for once a table has been made, so that nearby spans reuse the table.
    static let margin: Int64 = 400 * 86_400

    /// A table covering `lower...upper`, or `nil` when none can be made.
    func table(_ zone: TimeZone, covering lower: Int64, _ upper: Int64) -> ZoneOffsetTable? {
        kept.withLock { kept in
            if kept.refused { return nil }
            if let table = kept.table, table.covers(lower), table.covers(upper) { return table }
            var from = lower, through = upper
            if let old = kept.table {
                from = min(lower - Self.margin, old.lower)
                through = max(upper + Self.margin, old.upper)
            }
            guard let made = ZoneOffsetTable.make(zone, lower: from, upper: through) else {
                kept.refused = true
                return nil
            }
            kept.table = made
            return made
        }
    }
}
