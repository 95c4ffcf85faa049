import Jansson
import JSONRPC
@testable import PluginHost
import Testing

@Suite("Protocol violations seen in the reader's replies")
struct ProtocolWatchTests {
    @Test("an invalid request the reader answers is the plugin's violation; a parse error (a stray line) and other answers are not")
    func findsViolations() {
        let parse = Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: parse) == nil)
        let batch = Array(#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too big"}}]"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: batch) == "too big")
        let fine = Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: fine) == nil)
    }
}

@Suite("Stray lines on a plugin's stdout")
struct StrayLinesTests {
    static let second: UInt64 = 1_000_000_000

    @Test("the first is logged, later ones within a minute are not, and the next log line counts them")
    func logsOncePerMinute() {
        var lines = StrayLines()
        #expect(lines.record(at: 0) == .log(skipped: 1))
        #expect(lines.record(at: 10 * Self.second) == .skip)
        #expect(lines.record(at: 20 * Self.second) == .skip)
        #expect(lines.record(at: 61 * Self.second) == .log(skipped: 3))
    }

    @Test("a throttled log line: the first count at once, then at most one line a minute with the count since the last")
    func throttledLogLine() {
        var log = LogThrottle()
        #expect(log.record(3, at: 0) == 3)
        #expect(log.record(2, at: Self.second) == nil)
        #expect(log.record(at: 59 * Self.second) == nil)
        #expect(log.record(at: 61 * Self.second) == 4)
        #expect(log.record(at: 200 * Self.second) == 1)
    }

    @Test("a hundred within a minute are skipped; the hundred-and-first stops the plugin; spread over minutes they never do")
    func tooManyWithinAMinute() {
        var burst = StrayLines()
        for index in 0..<100 { #expect(burst.record(at: UInt64(index) * 1_000) != .tooMany) }
        #expect(burst.record(at: 200_000) == .tooMany)
        var spread = StrayLines()
        for index in 0..<1_000 { #expect(spread.record(at: UInt64(index) * Self.second) != .tooMany) }
    }

    @Test("the reader's parse-error replies are taken out of what goes to the plugin and counted; other replies stay")
    func repliesToStrayLinesAreDropped() {
        let parse = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        let answer = #"{"jsonrpc":"2.0","id":4,"result":{}}"#
        let (kept, strays) = ProtocolWatchSink.withoutStrayLineReplies(Array((parse + "\n" + answer + "\n" + parse + "\n").utf8))
        #expect(strays == 2 && kept == Array((answer + "\n").utf8))
        let (untouched, none) = ProtocolWatchSink.withoutStrayLineReplies(Array((answer + "\n").utf8))
        #expect(none == 0 && untouched == Array((answer + "\n").utf8))
    }
}

@Suite("A tool's error message")
struct ToolErrorMessageTests {
    @Test("kept whole up to 1,000 characters; past that cut after the last whole word, with …")
    func wholeWords() {
        let short = "No such file: notes.txt"
        #expect(PluginError.toolError("p", tool: "t", content: [["type": "text", "text": .string(short)]]).message == "Tool t failed: " + short)
        let words = String(repeating: "word ", count: 300)
        let cut = PluginError.wholeWords(words, limit: 1_000)
        #expect(cut == String(repeating: "word ", count: 200).dropLast() + "…")
        #expect(PluginError.wholeWords("lorem ipsum dolorsit", limit: 14) == "lorem ipsum…")
        #expect(PluginError.wholeWords(String(repeating: "x", count: 20), limit: 10) == String(repeating: "x", count: 10) + "…")
        #expect(PluginError.wholeWords("exactly ten", limit: 11) == "exactly ten")
    }
}
