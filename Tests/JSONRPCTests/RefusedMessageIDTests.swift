import Testing
@testable import JSONRPC

/// The id of a message refused unread, read from its kept ends: `head` bytes of its start and `tail`
/// of its end (as the framer keeps them, ``MessageEnds``).
private func refusedID(_ text: [UInt8], head: Int = MessageEnds.headCapacity, tail: Int = MessageEnds.tailCapacity) -> String? {
    let headEnd = min(max(head, 0), text.count)
    let tailStart = max(headEnd, text.count - max(tail, 0))
    let token = text.withUnsafeBytes { bytes in
        RefusedMessageID.token(in: MessageEnds(head: UnsafeRawBufferPointer(rebasing: bytes[..<headEnd]),
                                               tail: UnsafeRawBufferPointer(rebasing: bytes[tailStart...]),
                                               isWhole: tailStart == headEnd))
    }
    return token.map { String(decoding: $0, as: UTF8.self) }
}

private func refusedID(_ text: String, head: Int = MessageEnds.headCapacity, tail: Int = MessageEnds.tailCapacity) -> String? {
    refusedID(Array(text.utf8), head: head, tail: tail)
}

/// Filler that pushes what follows out of a 4 KiB head.
private let filler = String(repeating: "z", count: 10_000)

@Suite("The id of a message refused unread, from its ends")
struct RefusedMessageIDTests {
    @Test("an id before params is read from the head; one after them, closing the object, from the tail")
    func headAndTail() {
        #expect(refusedID(#"{"jsonrpc":"2.0","id":5,"method":"host.echo","params":{"x":"\#(filler)"}}"#) == "5")
        #expect(refusedID(#"{"jsonrpc": "2.0", "id": "req-7", "method": "m", "params": ["\#(filler)"]}"#) == #""req-7""#)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":-12}"#) == "-12")
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"] , "id" : "abc" }  "#) == #""abc""#)
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1.5,"method":"m","params":["\#(filler)"]}"#) == "1.5")
        // A message whose ends meet is read whole.
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":9}"#, head: 20_000) == "9")
    }

    @Test("an id inside params, or inside a string, is never taken")
    func decoys() {
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":{"s":"\#(filler)","id":5}}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":{"id":5,"s":"\#(filler)"}}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)",{"id":5}]}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"s":"x\",\"id\":5}"}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"s":"x\",\"id\":\"5\"}"}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"x\"id":5}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","s":"{\"id\":5,","params":["\#(filler)"]}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","idx":5,"params":["\#(filler)"]}"#) == nil)
        // The real one wins over a decoy in params.
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":{"id":5,"s":"\#(filler)"},"id":6}"#) == "6")
        // An id at each end: the same is given; two differ when a Content-Length longer than its body
        // swallowed the next message, whose id is not this one's: then only the head's is read.
        #expect(refusedID(#"{"jsonrpc":"2.0","id":6,"method":"m","params":["\#(filler)"],"id":6}"#) == "6")
        #expect(refusedID(#"{"jsonrpc":"2.0","id":6,"method":"m","params":["\#(filler)"],"id":7}"#) == nil)
        let swallowed = #"{"jsonrpc":"2.0","id":1,"method":"m","params":["\#(filler)"]}"#
            + "Content-Length: 40\r\n\r\n" + #"{"jsonrpc":"2.0","method":"m","id":2}"#
        #expect(refusedID(swallowed) == "1")
        // The same with this message's id last, out of the head: the tail's id is still the next message's.
        let swallowedLast = #"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":1}"#
            + "content-length: 40\r\n\r\n" + #"{"jsonrpc":"2.0","method":"m","id":2}"#
        #expect(refusedID(swallowedLast) == nil)
    }

    @Test("a batch, an answer, a notification and text that is not JSON get no id; a message with a method gets its id as a fitting one would")
    func notASingleRequest() {
        #expect(refusedID(#"[{"jsonrpc":"2.0","id":1,"method":"m","params":["\#(filler)"]}]"#) == nil)
        #expect(refusedID(#"[{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":1}]"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"result":["\#(filler)"]}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","result":["\#(filler)"],"id":1}"#) == nil)
        // A method and an error: invalid, answered with its id when it fits too (never an answer of ours).
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"method":"m","error":{"message":"\#(filler)"}}"#) == "1")
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"method":7,"params":["\#(filler)"]}"#) == "1")
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"]}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"method":"m",]"\#(filler)"],"id":1}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"method":"m"} \#(filler)"#) == nil)
        #expect(refusedID(#"xx"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":1}"#) == nil)
        // Its method unseen, a request cannot be told from an answer.
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"params":["\#(filler)"],"method":"m"}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","id":1,"params":["\#(filler)"],"result":"m"}"#) == nil)
    }

    @Test("an id cut off by the head's end is not read: not a number's first digits, not a string's start")
    func cutTokens() {
        let text = #"{"jsonrpc":"2.0","method":"m","id":12345,"params":["\#(filler)"]}"#
        let digits = text.utf8.count - filler.utf8.count - #"5,"params":[""]}"#.utf8.count
        #expect(refusedID(text, head: digits) == nil, "cut after 1234")
        #expect(refusedID(text, head: digits + 1) == nil, "cut after 12345: more digits may follow")
        #expect(refusedID(text, head: digits + 2) == "12345")
        let string = #"{"jsonrpc":"2.0","method":"m","id":"ab","params":[]}"#
        #expect(refusedID(string, head: 38, tail: 0) == nil)
        #expect(refusedID(string, head: 39, tail: 0) == #""ab""#)
    }

    @Test("escapes: read exactly from the head, given up in the tail")
    func escapes() {
        #expect(refusedID(#"{"jsonrpc":"2.0","\u0069d":"a\"b\u00e9","method":"m","params":["\#(filler)"]}"#) == #""a\"b\u00e9""#)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":"a\"b"}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":"a\\"}"#) == nil)
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"\u0069d":5}"#) == nil)
        // An id jansson cannot hold, or a real that would not read back as sent, is not echoed.
        #expect(refusedID(#"{"jsonrpc":"2.0","method":"m","params":["\#(filler)"],"id":123456789012345678901234567890}"#) == nil)
    }

    @Test("random objects cut at random points: never a wrong id, the id whenever it and the method are in the head or it closes the tail")
    func randomObjects() {
        var rng = FramerTestRNG(seed: 0x1DF1D)
        var found = 0
        for _ in 0..<1_500 {
            let object = RandomRequest(&rng)
            let text = object.text
            var cuts: [(head: Int, tail: Int)] = [(text.count, 0), (MessageEnds.headCapacity, MessageEnds.tailCapacity)]
            for _ in 0..<12 {
                let head = Int(rng.next() % UInt64(text.count + 1))
                cuts.append((head, Int(rng.next() % UInt64(text.count - head + 1))))
            }
            for cut in cuts {
                let result = refusedID(text, head: cut.head, tail: cut.tail)
                let description = "\(String(decoding: text.prefix(300), as: UTF8.self)) cut to \(cut)"
                guard let expected = object.expectedID else {
                    #expect(result == nil, "\(description)")
                    continue
                }
                if let result { #expect(result == expected, "\(description)") }
                let whole = cut.head + cut.tail >= text.count
                let inHead = object.idEnd < cut.head && object.methodEnd < cut.head
                let inTail = object.idIsLast && object.idEscapesFree && text.count - cut.tail <= object.idMemberStart
                    && object.methodEnd < cut.head
                if whole || inHead || inTail {
                    #expect(result == expected, "\(description): not found (whole \(whole), head \(inHead), tail \(inTail))")
                }
                if result != nil { found += 1 }
            }
        }
        #expect(found > 2_000, "the generator makes findable ids")
    }

    @Test("any bytes, any cut: no trap")
    func garbage() {
        var rng = FramerTestRNG(seed: 7)
        let alphabet = Array(#"{}[]":,\ idmethod01-.eE"tru"nul\u00é"#.utf8) + [0xFF, 0xC3, 0x0A]
        for _ in 0..<3_000 {
            var text = RandomRequest(&rng).text
            for _ in 0..<Int(rng.next() % 4) where !text.isEmpty {
                text[Int(rng.next() % UInt64(text.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let head = Int(rng.next() % UInt64(text.count + 1))
            _ = refusedID(text, head: head, tail: Int(rng.next() % UInt64(text.count - head + 1)))
        }
    }
}

/// A random JSON-RPC-like object, with where its `id` and `method` members lie: ids of every kind,
/// decoy `"id"` members nested in params and inside strings, escapes, random whitespace, sometimes a
/// `result` member (an answer), no `method` (an answer or a notification) or no `id`.
private struct RandomRequest {
    var text: [UInt8] = []
    /// The id's token when the object has an id and a method (a request, or invalid: answered with its id).
    var expectedID: String?
    /// The end of the id's value and of the method's (`Int.max` when absent).
    var idEnd = Int.max
    var methodEnd = Int.max
    /// Where the id member starts: the `,` or `{` before its name.
    var idMemberStart = Int.max
    var idIsLast = false
    var idEscapesFree = false

    init(_ rng: inout FramerTestRNG) {
        func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
        func pick<T>(_ options: [T]) -> T { options[Int(rng.next() % UInt64(options.count))] }

        var members: [String] = ["jsonrpc", "params", "extra", "x\\\"id", "idx"].filter { _ in chance(70) }
        let hasID = chance(85), hasMethod = chance(85), isAnswer = chance(10)
        if hasID { members.append("id") }
        if hasMethod { members.append("method") }
        if isAnswer { members.append(pick(["result", "error"])) }
        members.shuffle(using: &rng)

        var out: [UInt8] = []
        func space() { if chance(20) { out += Array(pick([" ", "  ", "\t", "\r\n", "\n "]).utf8) } }
        func emit(_ text: String) { out += Array(text.utf8) }

        func decoyString() -> String {
            pick([#""plain""#, #""x\",\"id\":5}""#, #""\"id\":\"7\"}""#, #""é\u00e9\n\\""#, #""{\"id\":1,""#, #""""#])
        }
        func value(depth: Int) {
            switch rng.next() % (depth > 3 ? 3 : 6) {
            case 0: emit(decoyString())
            case 1: emit(pick(["0", "-1", "12345", "1.5e3", "true", "false", "null"]))
            case 2: emit("\"" + String(repeating: "f", count: Int(rng.next() % 6_000)) + "\"")
            case 3:
                emit("{")
                let names = [#""id""#, #""a""#, #""\u0069d""#, #""b""#].shuffled(using: &rng).prefix(Int(rng.next() % 4))
                for (index, name) in names.enumerated() {
                    if index > 0 { emit(",") }
                    space(); emit(name); space(); emit(":"); space(); value(depth: depth + 1); space()
                }
                emit("}")
            default:
                emit("[")
                for index in 0..<Int(rng.next() % 4) {
                    if index > 0 { emit(",") }
                    space(); value(depth: depth + 1); space()
                }
                emit("]")
            }
        }

        var expected: String?
        emit("{")
        for (index, name) in members.enumerated() {
            let memberStart = out.count
            if index > 0 { emit(",") }
            space()
            let spelled = name == "id" && chance(5) ? #""\u0069d""# : "\"\(name)\""
            emit(spelled); space(); emit(":"); space()
            switch name {
            case "id":
                let token = pick(["7", "-42", "0", "3.25", "1e2", #""abc""#, #""req-9""#, #""a\"b""#, #""\u00e9""#, #""é""#, #""""#,
                                  String(rng.next() % 1_000_000_000)])
                emit(token)
                idEnd = out.count
                idMemberStart = memberStart
                idIsLast = index == members.count - 1
                idEscapesFree = !token.contains("\\") && !spelled.contains("\\")
                expected = token
            case "method":
                emit(pick([#""host.echo""#, #""m\u00e9""#, #""a/b""#]))
                methodEnd = out.count
            case "jsonrpc":
                emit(#""2.0""#)
            default:
                value(depth: 0)
            }
            space()
        }
        emit("}")
        if chance(10) { space() }
        text = out
        expectedID = hasMethod ? expected : nil
    }
}
