import Foundation

/// Sectors in the order a reader of a locale expects: by name, compared with the Unicode Collation
/// Algorithm as tailored for that locale (ICU, through Foundation: in German `Öl` sorts with `O`, in
/// Swedish after `Z`), then by id where names collate equal.
///
/// Foundation's locale-aware `compare` on Linux runs ICU's collator (the copy Foundation carries;
/// CoreFoundation opens it once and reuses it), at tertiary strength: case and accents decide only between names equal otherwise, and a
/// decomposed name sorts as its composed form.
enum SectorOrder {
    static func sorted(_ sectors: [Sector], locale: Locale) -> [Sector] {
        sectors.sorted { a, b in
            switch a.name.compare(b.name, options: [], range: nil, locale: locale) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: a.id < b.id
            }
        }
    }
}
