import CJansson

/// Writes JSON text with jansson, compact or indented.
///
/// Real numbers are written with the fewest digits that read back as the same double, where jansson
/// alone would write 17 (`0.1` as `0.10000000000000001`): jansson takes one precision per call, so the
/// writer picks the precision the most demanding real of the document needs. A document whose reals
/// need different precisions still reads back to the same doubles, with some written longer.
///
/// A writer keeps a scratch buffer between calls, so reuse one where many documents are written.
public final class JSONWriter {
    private var scratch: UnsafeMutableRawBufferPointer

    public init(initialCapacity: Int = 4096) {
        scratch = .allocate(byteCount: max(initialCapacity, 64), alignment: 1)
    }

    deinit { scratch.deallocate() }

    /// Writes `value` and passes the text to `body`; the bytes are valid only inside `body`.
    public func withBytes<R>(of value: JSONView, pretty: Bool = false, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let flags = Self.flags(for: value, pretty: pretty)
        var length = json_dumpb(value.pointer, scratch.baseAddress, scratch.count, flags)
        if length > scratch.count {
            scratch.deallocate()
            scratch = .allocate(byteCount: max(length, scratch.count * 2), alignment: 1)
            length = json_dumpb(value.pointer, scratch.baseAddress, scratch.count, flags)
        }
        return try body(UnsafeRawBufferPointer(rebasing: scratch[..<length]))
    }

    /// Appends the text of `value` to `buffer`.
    public func append(_ value: JSONView, pretty: Bool = false, to buffer: inout [UInt8]) {
        withBytes(of: value, pretty: pretty) { buffer.append(contentsOf: $0) }
    }

    /// The text of `value` as bytes.
    public static func bytes(of value: JSONView, pretty: Bool = false) -> [UInt8] {
        JSONWriter(initialCapacity: 256).withBytes(of: value, pretty: pretty) { Array($0) }
    }

    /// The text of `value` as a string.
    public static func string(of value: JSONView, pretty: Bool = false) -> String {
        JSONWriter(initialCapacity: 256).withBytes(of: value, pretty: pretty) { String(decoding: $0, as: UTF8.self) }
    }

    private static func flags(for value: JSONView, pretty: Bool) -> Int {
        var flags = Int(JSON_ENCODE_ANY) | (pretty ? sb_json_max_indent(2) : Int(JSON_COMPACT))
        let digits = RealPrecision.digitsNeeded(in: value)
        if digits > 0 { flags |= sb_json_real_precision(Int32(digits)) }
        return flags
    }
}

/// How many significant digits `%.Ng` needs to write a double so that it reads back unchanged.
enum RealPrecision {
    /// The most digits any real in `value` needs; 0 when it holds no real.
    static func digitsNeeded(in value: JSONView) -> Int {
        switch value.kind {
        case .real:
            return digits(for: json_real_value(value.pointer))
        case .array:
            var most = 0
            for index in 0..<value.count { most = max(most, digitsNeeded(in: JSONView(json_array_get(value.pointer, index)))) }
            return most
        case .object:
            var most = 0
            var iterator = json_object_iter(value.pointer)
            while let current = iterator {
                most = max(most, digitsNeeded(in: JSONView(json_object_iter_value(current))))
                iterator = json_object_iter_next(value.pointer, current)
            }
            return most
        default:
            return 0
        }
    }

    /// Swift prints the shortest text that reads back as the same double; its significant digits are
    /// what `%g` needs. For numbers of 1 or more, `%g` must also get at least as many digits as the
    /// integer part has, or it switches to exponent form (`100.0` would become `1e2`).
    static func digits(for value: Double) -> Int {
        guard value.isFinite, value != 0 else { return 1 }
        let text = "\(value.magnitude)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let significant = mantissa.filter { $0 != "." }.drop { $0 == "0" }
        var count = significant.count
        while count > 1, significant[significant.index(significant.startIndex, offsetBy: count - 1)] == "0" { count -= 1 }
        let exponent: Int
        if parts.count == 2 {
            exponent = Int(parts[1]) ?? 0
        } else {
            let integerPart = mantissa.prefix { $0 != "." }
            exponent = integerPart == "0" ? -1 : integerPart.count - 1
        }
        return min(17, max(count, exponent >= 0 ? exponent + 1 : 1))
    }
}
