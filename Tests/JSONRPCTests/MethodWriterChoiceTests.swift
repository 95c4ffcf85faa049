import Jansson
import Testing
@testable import JSONRPC

/// A method's result is written by the result's own writer when it has one, and its params are open
/// when they are ``OpenParams``: both decided by the method's types when it is compiled, with no cast
/// at run time (``RPCMethod/encode(result:)``, ``RPCMethod/paramsAreOpen``).
@Suite("A method's result writer and params, chosen by its types")
struct MethodWriterChoiceTests {
    /// Each type below writes `by` differently by each path, so a test sees which one ran; a real
    /// type's paths write the same JSON.
    struct Text: JSONTextEncodable, Sendable {
        enum CodingKeys: CodingKey { case by }
        func writeJSON(into text: inout [UInt8]) throws { text.append(contentsOf: #"{"by":"text"}"#.utf8) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("encoder", forKey: .by)
        }
    }

    struct Built: JanssonEncodable, Sendable {
        enum CodingKeys: CodingKey { case by }
        func writeMembers(into object: JanssonObjectBuilder) throws { object.set("by", "builder") }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("encoder", forKey: .by)
        }
    }

    struct Plain: Encodable, Sendable {
        var by = "encoder"
    }

    struct Handshake: OpenParams, Sendable {
        var name: String?
    }

    struct Strict: Decodable, Sendable {
        var name: String?
    }

    enum TextMethod: RPCMethod {
        static let name = "test.text"
        static let summary = "Writes its text."
        typealias Result = Text
    }

    enum BuiltMethod: RPCMethod {
        static let name = "test.built"
        static let summary = "Builds its object."
        typealias Result = Built
    }

    enum PlainMethod: RPCMethod {
        static let name = "test.plain"
        static let summary = "Goes through the encoder."
        typealias Params = Strict
        typealias Result = Plain
    }

    enum OpenMethod: RPCMethod {
        static let name = "test.open"
        static let summary = "Takes members it does not know."
        typealias Params = Handshake
        typealias Result = String
    }

    @Test("a result with its own writer is written by it; any other through the encoder")
    func resultWriters() throws {
        #expect(try Self.written(TextMethod.encode(result: Text())) == ["by": "text"])
        #expect(try Self.written(BuiltMethod.encode(result: Built())) == ["by": "builder"])
        #expect(try Self.written(PlainMethod.encode(result: Plain())) == ["by": "encoder"])
        #expect(try Self.written(OpenMethod.encode(result: "pong")) == "pong")
    }

    /// The JSON a jansson value holds, read while the value is alive.
    static func written(_ value: JanssonValue) -> JSONValue {
        withExtendedLifetime(value) { JSONValue(value.view) }
    }

    @Test("params are open for OpenParams alone: an unknown member is taken there and refused elsewhere")
    func openParams() throws {
        #expect(OpenMethod.paramsAreOpen)
        #expect(!PlainMethod.paramsAreOpen)
        let params = try JSONParser.parse(#"{"name":"a","capabilities":{}}"#)
        let open = try ParamsDecoding.decode(Handshake.self, from: params.view, open: OpenMethod.paramsAreOpen)
        #expect(open.name == "a")
        #expect(throws: (any Error).self) {
            try ParamsDecoding.decode(Strict.self, from: params.view, open: PlainMethod.paramsAreOpen)
        }
    }
}
