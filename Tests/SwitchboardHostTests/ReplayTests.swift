import Jansson
import JSONRPC
import PropertyBased
import SwitchboardHost
import Testing

/// `switchboard replay` in-process: a recording read back, volatile paths, answers compared by id and
/// notifications by method, on the host's own methods.
@Suite("Record and replay, in-process")
struct ReplayTests {
    static func request(_ id: Int64, _ method: String, _ params: JSONValue? = nil) -> JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0", "id": .integer(id), "method": .string(method)]
        if let params { object["params"] = params }
        return .object(object)
    }

    static func answer(_ id: Int64, _ result: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "id": .integer(id), "result": result]
    }

    static func replay(_ lines: [JSONValue], volatile: [String] = []) throws -> ReplayReport {
        let header: JSONValue = ["switchboard": "recording", "version": 1, "args": [:], "volatile": .array(volatile.map { .string($0) })]
        let text = ([header] + lines).map { $0.jsonText() }.joined(separator: "\n")
        let dispatcher = try MethodRegistry.hostMethods().freeze()
        return Replayer.replay(try Recording(text: text), dispatcher: dispatcher, logger: quietLogger)
    }

    static func line(_ direction: String, _ frame: JSONValue) -> JSONValue {
        ["t": 0, "dir": .string(direction), "frame": frame]
    }

    @Test("the same answers again: all match")
    func matching() throws {
        let report = try Self.replay([
            Self.line("in", Self.request(1, "host.echo", ["items": [["date": "x", "n": 1]]])),
            Self.line("out", Self.answer(1, ["items": [["date": "x", "n": 1]]])),
            Self.line("in", Self.request(2, "host.ping")),
            Self.line("out", Self.answer(2, "pong")),
        ])
        #expect(report.matches, "\(report.differences)")
        #expect(report.answersCompared == 2)
    }

    @Test("a different answer is reported at its path, naming the id and the method")
    func differing() throws {
        let report = try Self.replay([
            Self.line("in", Self.request(7, "host.echo", ["items": [["date": "new", "n": 1]]])),
            Self.line("out", Self.answer(7, ["items": [["date": "old", "n": 1]]])),
        ])
        #expect(report.differences == [#"the answer to id 7 (host.echo) differs at result.items[0].date: recorded "old", replayed "new""#])
    }

    @Test("a path the header marks volatile is not compared; the rest still is")
    func volatilePaths() throws {
        let lines = [
            Self.line("in", Self.request(1, "host.echo", ["items": [["date": "new", "n": 1], ["date": "new2", "n": 2]]])),
            Self.line("out", Self.answer(1, ["items": [["date": "old", "n": 1], ["date": "old2", "n": 2]]])),
        ]
        #expect(try Self.replay(lines, volatile: ["result.items[*].date"]).matches)
        #expect(try Self.replay(lines, volatile: ["$.result.items[*].*"]).matches)
        #expect(try Self.replay(lines, volatile: ["result.items[0].date"]).differences.count == 1)
    }

    @Test("an answer recorded but not replayed, and one replayed but not recorded, are both reported")
    func missingAnswers() throws {
        let report = try Self.replay([
            Self.line("in", Self.request(1, "host.ping")),
            Self.line("out", Self.answer(9, "pong")),
        ])
        #expect(report.differences.count == 2)
    }

    @Test("volatile paths: members, indexes, wildcards; anything else is refused")
    func pathSyntax() {
        let value: JSONValue = ["result": ["a": [["b": 1], ["b": 2]], "c": 3]]
        #expect(VolatilePath("result.a[1].b")?.masking(value) == ["result": ["a": [["b": 1], ["b": "(volatile)"]], "c": 3]])
        #expect(VolatilePath("result.*")?.masking(value) == ["result": ["a": "(volatile)", "c": "(volatile)"]])
        #expect(VolatilePath("result.x.y")?.masking(value) == value)
        for bad in ["", ".", "a..b", "a[", "a[x]", "a[-1]", "a[1]x"] {
            #expect(VolatilePath(bad) == nil, "\(bad)")
        }
    }

    @Test("any text is a volatile path or refused, and masking with it never traps")
    func anyPath() async {
        let pieces = ["result", "items", ".", "[", "]", "*", "0", "1", "99999999999999999999", "-", "$", "a", "é", "\u{0}"]
        let texts = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...10).map { $0.joined() }
        let value: JSONValue = ["result": ["items": [["a": 1], 2, "x"], "a": ["*": [nil]]]]
        await propertyCheck(count: 2_000, input: texts) { text in
            guard let path = VolatilePath(text) else { return }
            #expect(path.description == text)
            _ = path.masking(value)
        }
    }

    @Test("any text is read as a recording or refused naming its line, never a trap")
    func anyRecordingText() async {
        let pieces = ["{\"switchboard\":\"recording\",\"volatile\":[\"a[\"]}", "{\"dir\":\"in\",\"frame\":1}", "{\"dir\":\"out\"}",
                      "\n", "{", "}", "[", "]", "\"", "t", ":", "1", " ", "é", "\u{0}", "{\"switchboard\":\"recording\",\"volatile\":7}"]
        let texts = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...12).map { $0.joined() }
        await propertyCheck(count: 2_000, input: texts) { text in
            do {
                _ = try Recording(text: text)
            } catch RecordingError.cannotRead(_, let reason) {
                #expect(reason.hasPrefix("line "))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("a recording line that is not JSON is an error naming the line")
    func unreadable() {
        #expect(throws: RecordingError.self) { try Recording(text: "{\"switchboard\":\"recording\"}\nnot json") }
    }
}
