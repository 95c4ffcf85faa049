import Jansson

// Helpers that keep each parsed or built jansson document alive while a view of it is in use.

/// Parses `text` and decodes `T` from it.
func decode<T: Decodable>(_ type: T.Type, _ text: String, with decoder: JanssonDecoder = JanssonDecoder()) throws -> T {
    let document = try JSONParser.parse(text)
    return try withExtendedLifetime(document) { try decoder.decode(T.self, from: document.view) }
}

/// The ``JSONFieldError`` decoding `T` from `text` throws, or `nil` when it decodes.
func fieldError<T: Decodable>(_ type: T.Type, _ text: String) throws -> JSONFieldError? {
    let document = try JSONParser.parse(text)
    return withExtendedLifetime(document) { () -> JSONFieldError? in
        do throws(JSONFieldError) {
            _ = try JanssonDecoder().decode(T.self, from: document.view)
            return nil
        } catch {
            return error
        }
    }
}

/// Encodes `value` and writes it as compact JSON text.
func encodedText(_ value: some Encodable) throws -> String {
    let json = try JanssonEncoder().encode(value)
    return withExtendedLifetime(json) { JSONWriter.string(of: json.view) }
}

/// Compact JSON text of a Swift value.
func written(_ value: JSONValue) -> String {
    let json = value.makeJansson()
    return withExtendedLifetime(json) { JSONWriter.string(of: json.view) }
}

/// Parses `text` into a `JSONValue`.
func parse(_ text: String) throws -> JSONValue {
    let document = try JSONParser.parse(text)
    return withExtendedLifetime(document) { JSONValue(document.view) }
}

/// Parses `text` into a `JSONValue` and writes it again.
func rewritten(_ text: String) throws -> String {
    written(try parse(text))
}
