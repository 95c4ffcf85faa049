#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the text of a JSON number (already known to match the JSON grammar).
public enum JSONNumberText {
    /// Whether an integer token fits jansson's 64-bit integer.
    public static func integerFits64Bits(_ token: UnsafeRawBufferPointer) -> Bool {
        let negative = token.first == UInt8(ascii: "-")
        let digits = token.dropFirst(negative ? 1 : 0)
        let limit = negative ? "9223372036854775808" : "9223372036854775807"
        if digits.count != limit.utf8.count { return digits.count < limit.utf8.count }
        return !limit.utf8.lexicographicallyPrecedes(digits)
    }

    /// Whether a real token reads as a finite double (jansson refuses those that overflow; ones that
    /// underflow read as 0 or a subnormal, which it keeps).
    public static func realFitsDouble(_ token: UnsafeRawBufferPointer) -> Bool {
        strtodValue(token).isFinite
    }

    /// The double a number token reads as, as jansson reads it (`strtod`).
    public static func strtodValue(_ token: UnsafeRawBufferPointer) -> Double {
        var text = [CChar](repeating: 0, count: token.count + 1)
        for (offset, byte) in token.enumerated() { text[offset] = CChar(bitPattern: byte) }
        return strtod(text, nil)
    }

    /// Whether the writer, which writes a double with the fewest digits that read back the same,
    /// writes the number the token states: `1e2` and `100.0` are the same number; `0.1` reads back as
    /// `0.1`; but a token with more digits than a double holds (`0.10000000000000000001`,
    /// `9007199254740993.0`) would come back as another number.
    public static func realReadsBackExactly(_ token: UnsafeRawBufferPointer) -> Bool {
        let value = strtodValue(token)
        guard value.isFinite, let stated = Decimal(token), let written = Decimal(Array("\(value)".utf8)) else { return false }
        return stated == written
    }

    /// A number as sign, significant digits (no leading or trailing zeros) and a power of ten.
    private struct Decimal: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int

        init?(_ text: some Collection<UInt8>) {
            var bytes = Array(text)
            negative = bytes.first == UInt8(ascii: "-")
            if negative { bytes.removeFirst() }
            var mantissa = bytes
            var exponent = 0
            if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                mantissa = Array(bytes[..<e])
                var power = bytes[(e + 1)...]
                var negativePower = false
                if power.first == UInt8(ascii: "+") || power.first == UInt8(ascii: "-") {
                    negativePower = power.first == UInt8(ascii: "-")
                    power = power.dropFirst()
                }
                // Exponents this long make no double; saturate instead of overflowing.
                guard !power.isEmpty else { return nil }
                var value = 0
                for digit in power {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
                    value = min(value * 10 + Int(digit - UInt8(ascii: "0")), 1_000_000)
                }
                exponent = negativePower ? -value : value
            }
            var digits: [UInt8] = []
            var fractionDigits = 0
            var seenPoint = false
            for byte in mantissa {
                if byte == UInt8(ascii: ".") {
                    seenPoint = true
                    continue
                }
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                digits.append(byte)
                if seenPoint { fractionDigits += 1 }
            }
            exponent -= fractionDigits
            while digits.first == UInt8(ascii: "0") { digits.removeFirst() }
            while digits.last == UInt8(ascii: "0") {
                digits.removeLast()
                exponent += 1
            }
            if digits.isEmpty { exponent = 0 }
            self.digits = digits
            self.exponent = exponent
        }
    }
}
