import CJansson

/// Writes JSON text with jansson, compact or indented.
///
/// Real numbers are written with the fewest digits that read back as the same double, where jansson
/// alone would write 17 (`0.1` as `0.10000000000000001`). jansson takes one precision per call, so the
/// writer gives it the precision the document's reals need; in the rare compact document whose reals
/// need different precisions, the writer writes the brackets, commas and colons itself and has jansson
/// write each part whose reals agree (keys, scalars, whole subtrees). Every value is still written by
/// jansson. (Indented output uses the largest precision: the same doubles, some written longer.)
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
        if let raw = RawNumber.text(of: value) { return try body(raw) }
        let digits = RealPrecision.range(in: value)
        if !pretty, digits.map({ $0.lowerBound != $0.upperBound }) ?? false || RawNumber.isNear(value) {
            var mixed: [UInt8] = []
            writeMixed(value, into: &mixed)
            return try mixed.withUnsafeBytes(body)
        }
        return try dump(value, flags: Self.flags(pretty: pretty, digits: digits?.upperBound ?? 0), body)
    }

    /// One jansson call into the scratch buffer, grown and repeated once if the text did not fit.
    private func dump<R>(_ value: JSONView, flags: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
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

    private static func flags(pretty: Bool, digits: Int) -> Int {
        var flags = Int(JSON_ENCODE_ANY) | (pretty ? sb_json_max_indent(2) : Int(JSON_COMPACT))
        if digits > 0 { flags |= sb_json_real_precision(Int32(digits)) }
        return flags
    }

    /// Compact text of a container whose reals need different precisions, part by part.
    private func writeMixed(_ value: JSONView, into output: inout [UInt8]) {
        if let raw = RawNumber.text(of: value) {
            output.append(contentsOf: raw)
            return
        }
        if RealPrecision.range(in: value).map({ $0.lowerBound != $0.upperBound }) ?? false || RawNumber.isNear(value) {
            switch value.kind {
            case .array:
                output.append(UInt8(ascii: "["))
                for index in 0..<value.count {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    writeMixed(value[index]!, into: &output)
                }
                output.append(UInt8(ascii: "]"))
                return
            case .object:
                output.append(UInt8(ascii: "{"))
                var first = true
                value.forEachMember { key, member in
                    if !first { output.append(UInt8(ascii: ",")) }
                    first = false
                    let name = JanssonValue.string(key)
                    withExtendedLifetime(name) {
                        dump(name.view, flags: Self.flags(pretty: false, digits: 0)) { output.append(contentsOf: $0) }
                    }
                    output.append(UInt8(ascii: ":"))
                    writeMixed(member, into: &output)
                }
                output.append(UInt8(ascii: "}"))
                return
            default:
                break
            }
        }
        let digits = RealPrecision.range(in: value)?.upperBound ?? 0
        dump(value, flags: Self.flags(pretty: false, digits: digits)) { output.append(contentsOf: $0) }
    }
}

/// A number kept as the text it was sent as, for echoing a real id exactly (`1e2`, not `100.0`).
///
/// jansson has no such value, so it is stored as a string that no parsed document can hold — its
/// first byte, 0xFF, is not UTF-8 — and the writer writes its text without quotes. It is honoured where
/// an id sits: as the `id` of a top-level object or of an object in a top-level array (a response or a
/// batch of them). The same holds any JSON text a ``JSONTextEncodable`` result wrote, honoured as such
/// a response's `result` (and at the top).
/// A document holding one is written part by part, like one whose reals need different precisions.
public enum RawNumber {
    static let marker: UInt8 = 0xFF

    /// A value written as `text`, which must be a JSON number.
    public static func make(_ text: some Collection<UInt8>) -> JanssonValue {
        let bytes = [marker] + Array(text)
        let pointer = bytes.withUnsafeBytes { raw in
            json_stringn_nocheck(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)!
        }
        return JanssonValue(taking: pointer)
    }

    /// The text of a raw value (a raw number, or a ``JSONTextEncodable`` result's text), or `nil` for
    /// any other value; valid while `value` is.
    public static func text(of value: JSONView) -> UnsafeRawBufferPointer? {
        guard sb_json_typeof(value.pointer) == JSON_STRING, let chars = json_string_value(value.pointer) else { return nil }
        let length = json_string_length(value.pointer)
        let bytes = UnsafeRawBufferPointer(start: chars, count: length)
        guard length > 1, bytes[0] == marker else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[1...])
    }

    /// Whether `value` (an object), or one of its elements (an array), has a raw value as its `id` or `result`.
    static func isNear(_ value: JSONView) -> Bool {
        func inObject(_ object: JSONView) -> Bool {
            guard sb_json_typeof(object.pointer) == JSON_OBJECT else { return false }
            if let id = json_object_getn(object.pointer, "id", 2), text(of: JSONView(id)) != nil { return true }
            guard let result = json_object_getn(object.pointer, "result", 6) else { return false }
            return text(of: JSONView(result)) != nil
        }
        switch sb_json_typeof(value.pointer) {
        case JSON_OBJECT: return inObject(value)
        case JSON_ARRAY: return (0..<json_array_size(value.pointer)).contains { inObject(JSONView(json_array_get(value.pointer, $0))) }
        default: return false
        }
    }
}

/// How many significant digits `%.Ng` needs to write a double so that it reads back unchanged.
enum RealPrecision {
    /// The fewest and most digits the reals in `value` need; `nil` when it holds no real.
    static func range(in value: JSONView) -> ClosedRange<Int>? {
        switch value.kind {
        case .real:
            let needed = digits(for: json_real_value(value.pointer))
            return needed...needed
        case .array:
            var result: ClosedRange<Int>?
            for index in 0..<value.count {
                result = merge(result, range(in: JSONView(json_array_get(value.pointer, index))))
            }
            return result
        case .object:
            var result: ClosedRange<Int>?
            var iterator = json_object_iter(value.pointer)
            while let current = iterator {
                result = merge(result, range(in: JSONView(json_object_iter_value(current))))
                iterator = json_object_iter_next(value.pointer, current)
            }
            return result
        default:
            return nil
        }
    }

    private static func merge(_ a: ClosedRange<Int>?, _ b: ClosedRange<Int>?) -> ClosedRange<Int>? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
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
        // With an exponent in Swift's text the number is large or small enough for %g to use one too.
        guard parts.count == 1 else { return min(17, count) }
        return min(17, max(count, exponent >= 0 ? exponent + 1 : 1))
    }
}
