import CJansson

/// A type that writes its JSON text itself, for the largest answers: building a jansson tree only to
/// write it out and free it again was most of the cost of a 15,000-entry `calendar.agenda`.
///
/// ``JanssonEncoder`` turns such a value at the top into a raw JSON value (see ``RawNumber``), which
/// ``JSONWriter`` copies as it is where a response's `result` sits, and `JSONValue(_:)` parses.
/// The type's `Encodable` conformance must describe the same JSON, and is what every other encoder uses.
public protocol JSONTextEncodable: Encodable {
    /// Appends this value's JSON text (one complete JSON value, UTF-8) to `text`.
    func writeJSON(into text: inout [UInt8]) throws
}

extension JSONTextEncodable {
    /// This value as a raw jansson value holding its text (see ``RawNumber``).
    public func makeRawJansson() throws -> JanssonValue {
        JanssonValue(taking: try makeRawPointer())
    }

    /// A new reference to a raw jansson value holding this value's text.
    func makeRawPointer() throws -> UnsafeMutablePointer<json_t> {
        var text: [UInt8] = [RawNumber.marker]
        try writeJSON(into: &text)
        return text.withUnsafeBytes { raw in
            json_stringn_nocheck(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)!
        }
    }
}
