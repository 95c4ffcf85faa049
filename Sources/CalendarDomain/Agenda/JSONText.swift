/// Appends JSON text to a growing byte buffer: what ``AgendaText`` writes an event's details with
/// (written once per event and copied into each of its entries).
///
/// Strings are escaped as RFC 8259 requires (`"`, `\`, and control characters); everything else in
/// them is copied as UTF-8.
struct JSONText {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func string(_ value: String) {
        bytes.append(0x22)
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(0x22)
    }

    private mutating func escape(_ byte: UInt8) {
        JSONEscape.write(byte) { bytes.append($0) }
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// `"name":` (a name that needs no escaping).
    mutating func key(_ name: StaticString) {
        bytes.append(0x22)
        raw(name)
        raw("\":")
    }

    /// `,"name":`.
    mutating func nextKey(_ name: StaticString) {
        bytes.append(UInt8(ascii: ","))
        key(name)
    }
}

/// How a byte a JSON string may not hold raw (`"`, `\`, a control character) is written: `\n` and the
/// other short escapes, else `\u00XX`. Shared by ``JSONText`` and ``ByteCursor``.
enum JSONEscape {
    static func write(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        emit(0x5C)
        switch byte {
        case 0x22, 0x5C: emit(byte)
        case 0x0A: emit(UInt8(ascii: "n"))
        case 0x0D: emit(UInt8(ascii: "r"))
        case 0x09: emit(UInt8(ascii: "t"))
        case 0x08: emit(UInt8(ascii: "b"))
        case 0x0C: emit(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            for character in [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                              hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0x0F)]] { emit(character) }
        }
    }
}
