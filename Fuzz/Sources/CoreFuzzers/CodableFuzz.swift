import FuzzSupport
import Jansson

/// JSON text through jansson and the Codable decoder over it.
///
/// Properties: it never traps; a document that parses, written and parsed again, is the same value;
/// `JSONValue` read through the decoder equals `JSONValue` read directly; a ``Sample`` decoded from it,
/// encoded and decoded again, is the same; strict decoding (unknown members rejected, NUL refused)
/// succeeds only where lenient decoding does; and a decoding error quotes a short excerpt only.
enum CodableFuzz: FuzzTarget {
    static let name = "codable"
    static let summary = "jansson parse/dump and JanssonDecoder/JanssonEncoder round trips"
    static let maxLength = 2048

    static func run(_ input: [UInt8]) {
        let document: JanssonValue
        do {
            document = try JSONParser.parse(input)
        } catch {
            require(error.offset <= input.count, "a parse error past the end: \(error)")
            return
        }
        let value = JSONValue(document.view)
        let text = value.jsonText()
        let again = try? JSONValue(parsing: text)
        require(again == value, "parse → write → parse changed the value: \(text)")
        let decoded = try? JanssonDecoder().decode(JSONValue.self, from: document.view)
        require(decoded == value, "JSONValue through the decoder differs: \(String(describing: decoded?.jsonText())) vs \(text)")
        checkSample(document)
    }

    static func checkSample(_ document: JanssonValue) {
        let lenient: Sample
        do {
            lenient = try JanssonDecoder().decode(Sample.self, from: document.view)
        } catch {
            require(error.description.count < 600, "a decoding error of \(error.description.count) characters")
            var strict = JanssonDecoder()
            strict.unknownMembers = .reject
            strict.rejectsNUL = true
            require((try? strict.decode(Sample.self, from: document.view)) == nil, "strict decoding accepted what lenient refused")
            return
        }
        do {
            let encoded = try JanssonEncoder().encode(lenient)
            let again = try JanssonDecoder().decode(Sample.self, from: encoded.view)
            require(again == lenient, "decode → encode → decode changed \(lenient) into \(again)")
        } catch {
            require(false, "a decoded sample did not encode and decode again: \(error)")
        }
    }
}

/// A type with the shapes methods' params have: optionals, numbers of several widths, nesting, enums.
struct Sample: Codable, Equatable {
    enum Mode: String, Codable { case fast, slow }

    var name: String?
    var count: Int?
    var small: Int8?
    var unsigned: UInt32?
    var ratio: Double?
    var flag: Bool?
    var mode: Mode?
    var tags: [String]?
    var limits: [String: Int64]?
    var children: [Sample]?
    var extra: JSONValue?
}
