@testable import CatalogDomain
import Foundation
import SwitchboardCore
import Testing

/// `SectorOrder` sorts by ICU sort keys made once per name: the order of collating two names at each
/// comparison (Foundation's `compare`, which it replaced) where that is consistent, one order whatever
/// the input's, and it stops in a cancelled request. The tailorings themselves: `CatalogCollationTests`.
@Suite("Sector order by sort keys")
struct SectorOrderTests {
    static let letters = Array("aAäÄåÅbBcCçdeEéÉèfgGhiIjklLmnñNoOöÖøØpqrsßStTuUüÜvwxyYzZæÆ 0123456789-'") + ["O\u{308}", "a\u{301}"]

    static func names(_ count: Int, seed: UInt64) -> [Sector] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let length = Int.random(in: 1...6, using: &generator)
            let name = (0..<length).map { _ in String(letters.randomElement(using: &generator) ?? "a") }.joined()
            return Sector(id: Int64(index), name: name, imageUrl: nil, brochureCount: 0)
        }
    }

    @Test("German and English: the same order as Foundation's locale-aware comparison, ties by id", arguments: ["de", "en"])
    func sameAsFoundation(tag: String) throws {
        let locale = try SectorLocale.parse(tag)
        for seed in 1...5 {
            let sectors = Self.names(400, seed: UInt64(seed))
            #expect(try SectorOrder.sorted(sectors, locale: locale).map(\.id) == SectorOrder.foundationSorted(sectors, locale: locale).map(\.id),
                    "\(tag), seed \(seed)")
        }
    }

    /// Where Foundation's comparison is not a consistent order (Swedish, Spanish, phone-book German on
    /// names like these: `nxøèh0` before `ñ` before `nÜØá`), its sort depended on the input's order;
    /// keys give one order whatever the input's.
    @Test("one order whatever the input's order", arguments: ["de", "sv", "en", "da", "es", "de-u-co-phonebk", "fi-FI"])
    func independentOfInputOrder(tag: String) throws {
        let locale = try SectorLocale.parse(tag)
        var generator = SplitMix64(seed: 77)
        for seed in 1...5 {
            let sectors = Self.names(400, seed: UInt64(seed))
            let order = try SectorOrder.sorted(sectors, locale: locale).map(\.id)
            #expect(try SectorOrder.sorted(sectors.shuffled(using: &generator), locale: locale).map(\.id) == order, "\(tag), seed \(seed)")
            #expect(try SectorOrder.sorted(sectors.reversed(), locale: locale).map(\.id) == order, "\(tag), seed \(seed)")
        }
    }

    @Test("in a cancelled request the sort stops with CancellationError")
    func cancelled() async throws {
        let sectors = Self.names(5_000, seed: 9)
        let sort = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try SectorOrder.sorted(sectors, locale: Locale(identifier: "de"))
        }
        await #expect(throws: CancellationError.self) { try await sort.value }
    }
}

/// Long runs of combining marks are keyed in Stream-Safe Text Format, so their canonical reordering is bounded.
@Suite("Sector names with long runs of combining marks")
struct SectorStreamSafeTests {
    @Test("a run of more than 30 marks gets a grapheme joiner after each 30; shorter runs and plain names are unchanged")
    func streamSafe() {
        let marks = String(repeating: "\u{316}\u{301}", count: 40)
        let safe = Collator.streamSafe("a" + marks)
        #expect(safe.unicodeScalars.filter { $0 == "\u{34F}" }.count == 2)
        #expect(safe.unicodeScalars.filter { $0 != "\u{34F}" }.elementsEqual(("a" + marks).unicodeScalars))
        for plain in ["Öl & Heizung", "e\u{301}cole", "a" + String(repeating: "\u{301}", count: 30), ""] {
            #expect(Collator.streamSafe(plain) == plain)
        }
    }
}
