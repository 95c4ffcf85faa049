import Foundation
import Synchronization

/// An IANA time zone (`Europe/Berlin`) and the arithmetic between its wall clock and instants.
///
/// The zone data is Foundation's `TimeZone` (ICU's tz database, linked into the binary); it is
/// loaded on the first calendar request that needs a zone, never at start. Zones are looked up once
/// and kept (``named(_:)``).
///
/// - Important: A wall time that does not exist (skipped by a DST change, or Samoa's 2011-12-30) is
///   read with the offset from before the change, so it lands as far after the gap as it was into
///   it (02:30 on the day Berlin springs forward is 03:30 CEST); a wall time that exists twice is
///   the first of the two. That is RFC 5545 §3.3.5, RFC 8984 §1.4.4, and Python's `fold=0`.
public struct ZoneRules: Sendable {
    /// The IANA name.
    public let identifier: String
    private let zone: TimeZone
    /// The offset tables made for this zone, shared by every copy.
    private let tables = ZoneOffsetTables()
    /// The table this copy answers from where it covers an instant (``covering(_:_:)``).
    private var table: ZoneOffsetTable?

    private init(identifier: String, zone: TimeZone) {
        self.identifier = identifier
        self.zone = zone
    }

    /// This zone answering offsets within `lower...upper` (instants) from a table of its changes
    /// (``ZoneOffsetTable``) instead of asking ICU each time; the answers are the same.
    func covering(_ lower: Int64, _ upper: Int64) -> ZoneRules {
        var copy = self
        copy.table = tables.table(zone, covering: lower, upper)
        return copy
    }

    /// True when this copy has a table (``covering(_:_:)`` made one).
    var answersFromTable: Bool { table != nil }

    /// The zone named `identifier` (an IANA name, as `TimeZone.knownTimeZoneIdentifiers` lists, or
    /// `UTC`), or `nil` when there is none of that name.
    public static func named(_ identifier: String) -> ZoneRules? {
        guard identifier.utf8.count <= 64 else { return nil }
        return cache.withLock { cache in
            if let known = cache.zones[identifier] { return known }
            guard let zone = known(identifier, names: &cache.names) else { return nil }
            let rules = ZoneRules(identifier: identifier, zone: zone)
            cache.zones[identifier] = rules
            return rules
        }
    }

    /// ICU's zone of a tz database name, `nil` for any other name. An `Area/Location` name ICU knows
    /// by that very name needs no list: enumerating ICU's zones (`names`, made on first need) was a
    /// tenth of a fresh process's first agenda, and ICU's list leaves out some current names
    /// (Asia/Kolkata, Europe/Kyiv) that it still knows, and those without a slash (``tzdataNames``).
    private static func known(_ identifier: String, names: inout Set<String>?) -> TimeZone? {
        let area = isAreaLocation(identifier)
        if area, let zone = TimeZone(identifier: identifier), zone.identifier == identifier { return zone }
        if !area, tzdataNames.contains(identifier) { return TimeZone(identifier: identifier) }
        if names == nil { names = Set(TimeZone.knownTimeZoneIdentifiers).union(["UTC", "Etc/UTC", "GMT"]) }
        let listed = names?.contains(identifier) == true
        guard listed || area, let zone = TimeZone(identifier: identifier), listed || zone.identifier == identifier else { return nil }
        return zone
    }

    /// The host's zone (``HostZone``), found once per process; UTC when the host names none.
    public static func host() -> ZoneRules { hostZone }

    private static let hostZone = HostZone.find() ?? ZoneRules(identifier: "UTC", zone: .gmt)

    /// True for an `Area/Location` name as the tz database spells them, which ICU's own ids
    /// (`GMT+5`, `PST`) are not.
    static func isAreaLocation(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || "0123456789_-+".unicodeScalars.contains($0)) }
        }
    }

    /// The tz database's names that are not `Area/Location` (its `backward`, `etcetera` and
    /// `northamerica`/`europe` files), which ICU knows but leaves out of its list; ICU's own ids
    /// (`PST`, `GMT+5`) are not among them. `Factory` is left out: it has no offset, only `-00`.
    static let tzdataNames: Set<String> = [
        "CET", "CST6CDT", "Cuba", "EET", "EST", "EST5EDT", "Egypt", "Eire", "GB", "GB-Eire", "GMT", "GMT+0", "GMT-0",
        "GMT0", "Greenwich", "HST", "Hongkong", "Iceland", "Iran", "Israel", "Jamaica", "Japan", "Kwajalein", "Libya",
        "MET", "MST", "MST7MDT", "NZ", "NZ-CHAT", "Navajo", "PRC", "PST8PDT", "Poland", "Portugal", "ROC", "ROK",
        "Singapore", "Turkey", "UCT", "UTC", "Universal", "W-SU", "WET", "Zulu",
    ]

    private struct Cache {
        var names: Set<String>?
        var zones: [String: ZoneRules] = [:]
    }

    private static let cache = Mutex(Cache())

    /// What a zone param must be, for error messages.
    public static let expected = "an IANA time zone name such as Europe/Berlin"

    /// Seconds east of UTC at the instant `instant` (seconds since the epoch).
    public func offset(at instant: Int64) -> Int64 {
        if let table, table.covers(instant) { return table.offset(at: instant) }
        return icuOffset(at: instant)
    }

    /// The offset at `instant` as ICU has it.
    func icuOffset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// The wall time of this zone at `instant`.
    public func local(at instant: Int64) -> LocalDateTime {
        LocalDateTime(seconds: instant + offset(at: instant))
    }

    /// The instant the wall clock of this zone shows `local` (see the type's note for gaps and folds).
    public func instant(of local: LocalDateTime) -> Int64 {
        // Offsets two days either side hold the offsets before and after any change near `local`
        // (zones change at most once in four days; Samoa's 24-hour jump included).
        let before = offset(at: local.seconds - 172_800)
        let after = offset(at: local.seconds + 172_800)
        let early = local.seconds - before
        // No change within two days either side (the common case): the offset is the same at `early`.
        if before == after { return early }
        if offset(at: early) == before { return early }  // exists (the first of two, in a fold)
        let late = local.seconds - after
        if offset(at: late) == after { return late }
        return early  // in a gap: read with the offset from before it
    }
}
