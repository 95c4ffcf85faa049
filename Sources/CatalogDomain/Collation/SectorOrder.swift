import CICUCollation
import Foundation

/// Sectors in the order a reader of a locale expects: by name, compared with the Unicode Collation
/// Algorithm as tailored for that locale (ICU: in German `Öl` sorts with `O`, in Swedish after `Z`), then
/// by id where names collate equal.
///
/// Each name's ICU sort key is made once and the keys are compared as bytes: collating two names at every
/// comparison of the sort (Foundation's locale-aware `compare`) took 8 s for 100,000 sectors. Tertiary
/// strength: case and accents decide only between names equal otherwise, and a decomposed name sorts as
/// its composed form. A cancelled request stops while the keys are made.
enum SectorOrder {
    static func sorted(_ sectors: [Sector], locale: Locale) throws -> [Sector] {
        guard sectors.count > 1 else { return sectors }
        guard let collator = Collator(tag: SectorLocale.identifier(locale)) else { return foundationSorted(sectors, locale: locale) }
        var keyed: [(key: [UInt8], sector: Sector)] = []
        keyed.reserveCapacity(sectors.count)
        for (index, sector) in sectors.enumerated() {
            if index % 1_024 == 0, Task.isCancelled { throw CancellationError() }
            keyed.append((collator.key(sector.name), sector))
        }
        keyed.sort { a, b in
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            return a.sector.id < b.sector.id
        }
        return keyed.map(\.sector)
    }

    /// Where ICU's collator cannot be opened: Foundation's comparison (the same order, slower).
    static func foundationSorted(_ sectors: [Sector], locale: Locale) -> [Sector] {
        sectors.sorted { a, b in
            switch a.name.compare(b.name, options: [], range: nil, locale: locale) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: a.id < b.id
            }
        }
    }
}

/// An ICU collator for one sort.
final class Collator {
    private let collator: OpaquePointer

    init?(tag: String) {
        var errorName: UnsafePointer<CChar>?
        guard let opened = sb_collator_open(tag, &errorName) else { return nil }
        collator = opened
    }

    deinit { sb_collator_close(collator) }

    /// The sort key of `text`; empty when ICU could not make one (such a name sorts first).
    func key(_ text: String) -> [UInt8] {
        var text = Self.streamSafe(text)
        return text.withUTF8 { utf8 in
            var key = [UInt8](repeating: 0, count: 128)
            var length = key.withUnsafeMutableBufferPointer { sb_collator_sort_key(collator, utf8.baseAddress, utf8.count, $0.baseAddress, Int32($0.count)) }
            if Int(length) > key.count {
                key = [UInt8](repeating: 0, count: Int(length))
                length = key.withUnsafeMutableBufferPointer { sb_collator_sort_key(collator, utf8.baseAddress, utf8.count, $0.baseAddress, Int32($0.count)) }
            }
            // Trimmed in place: no second copy of every name's key.
            key.removeLast(key.count - min(max(0, Int(length)), key.count))
            return key
        }
    }

    /// The most combining marks in a row before a combining grapheme joiner is put between them.
    static let longestMarkRun = 30

    /// `text` in Unicode's Stream-Safe Text Format (UAX #15): a combining grapheme joiner (U+034F)
    /// after each 30 combining marks in a row. Putting a run of marks in canonical order, as the
    /// collator's normalization does, takes time growing with the square of the run: names of 1,000
    /// marks in a row took 0.6 ms each to key, 50 times a plain name. Names with shorter runs (all
    /// real text) are unchanged.
    static func streamSafe(_ text: String) -> String {
        var run = 0
        var needed = false
        for scalar in text.unicodeScalars {
            run = scalar.properties.canonicalCombiningClass == .notReordered ? 0 : run + 1
            if run > longestMarkRun { needed = true; break }
        }
        guard needed else { return text }
        var safe = String.UnicodeScalarView()
        run = 0
        for scalar in text.unicodeScalars {
            if scalar.properties.canonicalCombiningClass == .notReordered {
                run = 0
            } else {
                run += 1
                if run > longestMarkRun {
                    safe.append("\u{34F}")
                    run = 1
                }
            }
            safe.append(scalar)
        }
        return String(safe)
    }
}
