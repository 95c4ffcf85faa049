import PropertyBased

// Generators of hostile client input for the parser properties: text made of pieces that parsers
// trip on, mixed with any Unicode scalar. Generated values shrink by dropping pieces, and a failing
// case prints the seed to rerun it with `.fixedSeed(…)`.

enum PropertyInputs {
    /// Any Unicode scalar, as a string (a surrogate code point becomes U+FFFD).
    static func scalar(_ value: UInt32) -> String {
        Unicode.Scalar(value).map { String($0) } ?? "\u{FFFD}"
    }

    /// Strings of 0...`count` pieces, each one of `pieces` or, one time in four, any scalar.
    static func text(_ pieces: [String], count: ClosedRange<Int>) -> Generator<String, AnySequence<Any>> {
        zip(Gen.int(in: 0...(pieces.count * 4 / 3)), Gen.uint32(in: 0...0x10FFFF))
            .map { index, value in index < pieces.count ? pieces[index] : scalar(value) }
            .array(of: count)
            .map { $0.joined() }
            .eraseToAny()
    }

    /// Pieces of timestamps: digits, their separators, signs, zones, and nearby bytes.
    static let timestampPieces = ["0", "1", "2", "5", "9", "00", "12", "23", "59", "60", "99", "2026", "9999", "0000",
                                  "-", ":", "T", "t", "Z", "z", ".", "+", " ", "123456789", "\u{0}", "é", "٣"]

    /// Pieces of search queries: words of the demo mail, FTS5 syntax, quotes, control characters.
    static let queryPieces = ["the", "budget", "review", "Q3", "café", "cafe\u{301}", "naïve", "ÉCOLE", " ", "  ", "\t", "\n",
                              "\"", "'", "*", "^", "(", ")", ":", "-", "+", "NEAR", "NEAR(", "AND", "OR", "NOT", "{", "}",
                              "subject:", "from_addr :", "\u{0}", "\\", "%", "_", "\u{1F600}", "\u{200B}", "日本", "😀"]

    /// Pieces of email addresses.
    static let addressPieces = ["a", "Z", "0", "_", "%", "+", "-", ".", "..", "@", "@@", "example", "com", "c", "x-y",
                                " ", "\t", "\r\n", "\u{0}", "é", "ß", "İ", "\u{301}", "\"", "<", ">", ",", "(", ")"]
}
