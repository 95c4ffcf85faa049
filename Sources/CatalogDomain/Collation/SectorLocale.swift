import Foundation
import Jansson

/// The locale sectors are ordered for: a client's `locale` param, or the host's locale.
///
/// - Important: Nothing here runs before the first `catalog.sectors`: Foundation's locale data
///   (ICU) is not touched while the host starts or answers `host.ping`.
enum SectorLocale {
    /// The locale of `text` (a ``LocaleTag`` whose language ICU has collation data for, and whose
    /// script, region and collation type it knows), or the `-32602` error naming `locale`.
    static func parse(_ text: String) throws(JSONFieldError) -> Locale {
        guard let tag = LocaleTag(text) else {
            // The parts collation uses: a valid tag with others (`de-u-ks-level1`, `en-x-private`) is refused as not read.
            throw invalid(text, "a BCP 47 tag of language[-Script][-REGION][-u-co-type] (no other extensions, variants or private use), "
                          + "such as \"de\", \"sv-SE\" or \"de-u-co-phonebk\"")
        }
        guard Locale.LanguageCode(tag.language).isISOLanguage, knownLanguages.contains(tag.language) else {
            throw invalid(text, "a locale whose language (\"\(tag.language)\") this host has collation data for")
        }
        if let script = tag.script, !Locale.Script(script).isISOScript {
            throw invalid(text, "a locale with an ISO 15924 script, not \"\(script)\"")
        }
        if let region = tag.region, !Locale.Region(region).isISORegion {
            throw invalid(text, "a locale with an ISO 3166 or UN M.49 region, not \"\(region)\"")
        }
        let locale = Locale(identifier: tag.identifier)
        if let collation = tag.collation, !Locale.Collation.availableCollations.contains(locale.collation) {
            throw invalid(text, "a locale with a collation type this host knows (\"phonebk\", \"trad\", …), not \"\(collation)\"")
        }
        return locale
    }

    /// The host's locale for collation, for a request without `locale`: the first of `LC_ALL`,
    /// `LC_COLLATE` and `LANG` that is set, as POSIX orders them (`sv_SE.UTF-8` is `sv-SE`), when it
    /// names a locale ICU has collation data for; else Foundation's current locale. Read from the
    /// environment, not from the C library, which knows only the locales the system installed.
    static var host: Locale {
        hostTag.flatMap { try? parse($0) } ?? Locale.current
    }

    /// The tag of the environment's collation locale (`language[-REGION]`), nil for none, `C` or `POSIX`.
    static var hostTag: String? {
        let names: [String] = ["LC_ALL", "LC_COLLATE", "LANG"]
        let value = names.lazy.compactMap { name in getenv(name).map { String(cString: $0) } }.first { !$0.isEmpty }
        guard let value, value != "C", value != "POSIX", !value.hasPrefix("C.") else { return nil }
        let name = value.prefix { $0 != "." && $0 != "@" }
        return name.isEmpty ? nil : name.replacingOccurrences(of: "_", with: "-")
    }

    /// The tag an answer reports for `locale`.
    static func identifier(_ locale: Locale) -> String {
        locale.identifier(.bcp47)
    }

    /// The languages ICU has locale data for (`de` for `de`, `de_AT`, …): computed on first use.
    private static let knownLanguages: Set<String> = Set(Locale.availableIdentifiers.map { identifier in
        String(identifier.prefix { $0 != "_" }).lowercased()
    })

    private static func invalid(_ text: String, _ expected: String) -> JSONFieldError {
        JSONFieldError(field: "locale", expected: expected, got: JSONFieldError.quote(text))
    }
}
