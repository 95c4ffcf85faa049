import Jansson
import Testing

/// `unknownMembers = .reject` and `rejectsNUL`: what JSON-RPC params decode with (issue 6, points 11 and 14).
@Suite("JanssonDecoder, strict")
struct StrictDecodingTests {
    static func strict(accepting top: [String] = ["_meta"]) -> JanssonDecoder {
        var decoder = JanssonDecoder()
        decoder.unknownMembers = .reject
        decoder.acceptedTopLevelMembers = top
        decoder.rejectsNUL = true
        return decoder
    }

    func strictError<T: Decodable>(_ type: T.Type, _ text: String) throws -> JSONFieldError {
        let value = try JSONParser.parse(text)
        do {
            _ = try withExtendedLifetime(value) { try Self.strict().decode(T.self, from: value.view) }
        } catch let error as JSONFieldError {
            return error
        }
        Issue.record("\(text) decoded as \(T.self)")
        return JSONFieldError(field: "", expected: "", got: "")
    }

    func strictDecode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let value = try JSONParser.parse(text)
        return try withExtendedLifetime(value) { try Self.strict().decode(T.self, from: value.view) }
    }

    @Test("a member the type never reads is refused, naming it, at the top and at any depth",
          arguments: [
              (#"{"folder":"inbox","limit":5,"uids":[],"bcc":"x"}"#, "bcc"),
              (#"{"folder":"inbox","limit":5,"uids":[],"filter":{"unread":true,"form":"ann"}}"#, "filter.form"),
              (#"{"folder":"inbox","limit":5,"uids":[],"filter":{"unread":true,"_meta":{}}}"#, "filter._meta"),
          ])
    func unknownMember(text: String, field: String) throws {
        let error = try strictError(ListParams.self, text)
        #expect(error.field == field)
        #expect(error.expected.contains("no member of this name"), "\(error)")
    }

    @Test("the error lists the members the object takes")
    func listsKnownMembers() throws {
        let error = try strictError(Filter.self, #"{"unread":true,"x":1}"#)
        #expect(error == JSONFieldError(field: "x", expected: "no member of this name (this object takes only from, unread)", got: "1"))
    }

    @Test("members of array elements are checked, each element on its own")
    func arrayElements() throws {
        #expect(try strictDecode([Filter].self, #"[{"unread":true},{"unread":false,"from":"a"}]"#).count == 2)
        #expect(try strictError([Filter].self, #"[{"unread":true},{"unread":false,"junk":0}]"#).field == "[1].junk")
    }

    @Test("_meta is accepted at the top; a dictionary takes any member; JSONValue members are open")
    func openPlaces() throws {
        let params = try strictDecode(ListParams.self, #"{"_meta":{"progressToken":7},"folder":"inbox","limit":5,"uids":[]}"#)
        #expect(params.limit == 5)
        #expect(try strictDecode([String: Int].self, #"{"a":1,"b":2}"#) == ["a": 1, "b": 2])
        #expect(try strictDecode(Box<JSONValue>.self, #"{"value":{"anything":[1,{"deep":true}]}}"#).value["anything"] != nil)
    }

    @Test("two containers on one object (a type that hands its decoder on) share what they asked for")
    func sharedObject() throws {
        let split = try strictDecode(Split.self, #"{"folder":"sent","limit":3}"#)
        #expect(split.folder == .sent && split.page.limit == 3)
        #expect(try strictError(Split.self, #"{"folder":"sent","limit":3,"cursor":"x"}"#).field == "cursor")
    }

    @Test("without .reject, unknown members are still ignored")
    func defaultIgnores() throws {
        let value = try JSONParser.parse(#"{"unread":true,"x":1}"#)
        #expect(try withExtendedLifetime(value) { try JanssonDecoder().decode(Filter.self, from: value.view) } == Filter(from: nil, unread: true))
    }

    @Test("a string holding U+0000 is refused naming its member, in structs and in [String]")
    func nul() throws {
        let member = try strictError(Filter.self, #"{"unread":true,"from":"ann\u0000zzz"}"#)
        #expect(member.field == "from")
        #expect(member.expected == "a string without U+0000 (NUL)")
        #expect(member.got == #""ann\u0000zzz""#)
        #expect(try strictError(ListParams.self, #"{"folder":"inbox","limit":1,"uids":[],"tags":["a","b\u0000"]}"#).field == "tags[1]")
        #expect(try strictError(Box<[String]>.self, #"{"value":["ok","\u0000"]}"#).field == "value[1]")
        #expect(try strictDecode(Filter.self, #"{"unread":true,"from":"plain"}"#).from == "plain")
    }

    @Test("an error quotes at most 100 characters of a value, with its length")
    func quotesAreCapped() throws {
        let huge = String(repeating: "x", count: 8 << 20)
        let error = try strictError(Box<Int>.self, #"{"value":""# + huge + #""}"#)
        #expect(error.got.utf8.count < 200, "\(error.got.prefix(300))")
        let direct = JSONFieldError(field: huge, expected: huge, got: huge)
        #expect(direct.description.utf8.count < 1_000)
        #expect(direct.got.hasSuffix("… (8388608 bytes)") && direct.got.unicodeScalars.count < 230)
        #expect(JSONFieldError.quote(huge) == "\"" + String(repeating: "x", count: 100) + "…\" (8388608 bytes)")
        #expect(JSONFieldError.quote("short\n") == #""short\n""#)
    }
}

/// Reads `folder` itself and hands the same decoder to `Page` for `limit`.
struct Split: Decodable {
    struct Page: Decodable {
        var limit: Int
    }

    var folder: Folder
    var page: Page

    enum CodingKeys: String, CodingKey { case folder }

    init(from decoder: any Decoder) throws {
        folder = try decoder.container(keyedBy: CodingKeys.self).decode(Folder.self, forKey: .folder)
        page = try Page(from: decoder)
    }
}
