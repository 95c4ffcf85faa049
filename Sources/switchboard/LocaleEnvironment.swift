#if canImport(Glibc)
import Glibc
#endif

/// The locale variables ICU reads for its default locale (`LC_ALL`, `LC_MESSAGES`, `LANG`, when the C
/// library's locale is `C`). ICU copies the language part into a buffer of 12 bytes, and the copy
/// Foundation carries crashed (SIGSEGV) on the first collation when one held a longer one
/// (`LC_ALL=aaaaaaaaaaaa`, `LANG=x-aaaaaaaaaaaaaa`). A value that is no POSIX locale name is dropped
/// from this process's environment before anything reads it (plugins do not get it either).
enum LocaleEnvironment {
    static let variables = ["LC_ALL", "LC_MESSAGES", "LC_COLLATE", "LANG"]

    /// Unsets each of ``variables`` that is no locale name; returns their names. Called first in `main`,
    /// while the process has one thread.
    static func dropMalformed() -> [String] {
        var dropped: [String] = []
        for name in variables {
            guard let value = getenv(name).map({ String(cString: $0) }), !isLocaleName(value) else { continue }
            unsetenv(name)
            dropped.append(name)
        }
        return dropped
    }

    /// `C`, `POSIX`, empty, or `language[_TERRITORY][.codeset][@modifier]` with a language of 2 or 3
    /// letters (ISO 639) and a territory of 2 letters or 3 digits.
    static func isLocaleName(_ value: String) -> Bool {
        if value.isEmpty || value == "C" || value == "POSIX" || value.hasPrefix("C.") { return true }
        let name = value.prefix { $0 != "." && $0 != "@" }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count <= 2, (2...3).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        guard parts.count == 2 else { return true }
        let territory = parts[1]
        return (territory.count == 2 && territory.allSatisfy { $0.isASCII && $0.isLetter })
            || (territory.count == 3 && territory.allSatisfy { $0.isASCII && $0.isNumber })
    }
}
