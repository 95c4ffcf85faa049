/// Folds inside a UTF-8 sequence. RFC 5545 §3.1 lets a line be folded (a line break and a space or
/// tab, which unfolding removes) anywhere, also between the bytes of one character; such a file is
/// UTF-8 only once unfolded, and `String(validating:)` refused it whole.
enum ICalendarFolds {
    /// `bytes` with each fold that falls inside a UTF-8 sequence moved before that sequence, so every
    /// character is whole on one physical line. Unfolding gives the same bytes, and the file keeps
    /// its line breaks, so lines are counted as before. A sequence that never completes is written as
    /// it was, for the UTF-8 check to refuse.
    static func joiningCharacters(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        // The bytes of a sequence begun but not complete, held back while folds are written.
        var sequence: [UInt8] = [], missing = 0, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if missing > 0 {
                if let fold = foldLength(bytes, at: index) {
                    result.append(contentsOf: bytes[index..<(index + fold)])
                    index += fold
                    continue
                }
                if byte & 0xC0 == 0x80 {
                    sequence.append(byte)
                    missing -= 1
                    if missing == 0 { result.append(contentsOf: sequence) }
                    index += 1
                    continue
                }
                result.append(contentsOf: sequence)
                missing = 0
            }
            switch byte {
            case 0xC2...0xDF: missing = 1
            case 0xE0...0xEF: missing = 2
            case 0xF0...0xF4: missing = 3
            default: missing = 0
            }
            if missing > 0 { sequence = [byte] } else { result.append(byte) }
            index += 1
        }
        if missing > 0 { result.append(contentsOf: sequence) }
        return result
    }

    /// The length of the fold at `index` (CR LF or LF, then a space or tab), or `nil` when there is none.
    private static func foldLength(_ bytes: [UInt8], at index: Int) -> Int? {
        let breakLength = bytes[index] == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : bytes[index] == 0x0A ? 1 : 0
        guard breakLength > 0, index + breakLength < bytes.count, bytes[index + breakLength] == 0x20 || bytes[index + breakLength] == 0x09 else {
            return nil
        }
        return breakLength + 1
    }
}
