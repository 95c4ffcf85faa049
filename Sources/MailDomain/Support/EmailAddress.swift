import SwitchboardCore

/// Email address validation, as the prototype's `isValidEmail` does it: `local@domain.tld`.
public enum EmailAddress {
    /// What a field holding an address expects, for `-32602` errors.
    public static let expected = "an email address like name@example.com"

    /// `text` trimmed and lower-cased when it is an address, else `nil`.
    ///
    /// The local part takes letters, digits and `._%+-`; the domain two or more dot-separated labels
    /// of letters, digits and `-`, the last of two letters or more.
    public static func normalized(_ text: String) -> String? {
        let trimmed = text.trimmingASCIISpaces()
        guard trimmed.utf8.count <= 254 else { return nil }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return nil }
        let local = parts[0].utf8, domain = parts[1]
        guard local.allSatisfy({ isAlphanumeric($0) || "._%+-".utf8.contains($0) }) else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last?.utf8 else { return nil }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63,
                  label.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else { return nil }
        }
        guard top.count >= 2, top.allSatisfy({ isLetter($0) }) else { return nil }
        return trimmed.lowercased()
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLetter(byte) || (48...57).contains(byte)
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    func trimmingASCIISpaces() -> String {
        trimming { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }
}
