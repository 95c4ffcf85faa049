import Jansson

/// The text of one message, scanned (``JSONScanner``) only if something needs it: on the wire path
/// nothing does.
struct LazyScan {
    let text: UnsafeRawBufferPointer
    private var result: JSONScanner.Scan??

    init(text: UnsafeRawBufferPointer) { self.text = text }

    /// For text already scanned.
    init(text: UnsafeRawBufferPointer, scan: JSONScanner.Scan) {
        self.text = text
        result = .some(scan)
    }

    /// The raw text of message `element`'s `id` value (element 0 for a message outside a batch).
    mutating func idToken(ofElement element: Int) -> UnsafeRawBufferPointer? {
        if result == nil { result = .some(JSONScanner.scan(text)) }
        guard let scan = result ?? nil, element < scan.messages.count, let range = scan.messages[element].id else { return nil }
        return UnsafeRawBufferPointer(rebasing: text[range])
    }
}

extension MessageReader {
    /// A real id is echoed exactly as sent (`1e2`, not `100.0`), and only if it reads back as the
    /// number sent: one with more digits than a double holds would come back as another number, which
    /// could be another request's id. Such an id is refused with `-32600` and id `null`. Only messages
    /// with a real id are scanned; `keep` holds the id's text for as long as the message is handled.
    @inline(__always)
    func checkingRealID(_ message: IncomingMessage, element: Int, scan: inout LazyScan, keep: inout [JanssonValue]) -> IncomingMessage {
        guard message.hasRealID else { return message }
        return checkingRealIDText(message, element: element, scan: &scan, keep: &keep)
    }

    private func checkingRealIDText(_ message: IncomingMessage, element: Int, scan: inout LazyScan,
                                    keep: inout [JanssonValue]) -> IncomingMessage {
        guard let idView = message.idView else { return message }
        guard let token = scan.idToken(ofElement: element), JSONNumberText.realReadsBackExactly(token) else {
            let text = scan.idToken(ofElement: element).map { Self.excerpt($0) } ?? "(unreadable)"
            return .invalid(idView: nil, reason: "\"id\" \(text) has more digits than a double holds, so it cannot be echoed exactly")
        }
        if JSONWriter.bytes(of: idView).elementsEqual(token) { return message }
        let exact = RawNumber.make(token)
        keep.append(exact)
        return message.replacingIDView(exact.view)
    }

    /// Valid JSON that jansson cannot hold (an integer beyond 64 bits, a real beyond a double, a member
    /// name with `\u0000`, a lone surrogate escape): answered `-32602` when only `params` holds it, else
    /// `-32600`, with the request's id whenever that can be read. Anything else jansson refused is a
    /// parse error.
    func handleUnholdable(_ text: UnsafeRawBufferPointer, parseError: JSONParseError) {
        guard let scan = JSONScanner.scan(text), !scan.unholdable.isEmpty else {
            replyError(.parseError(parseError, in: text), id: nil, target: .single)
            return
        }
        // Held for the views the messages point into.
        var documents: [JanssonValue] = []
        // One scan for the whole text: each member's real id is found in it (scanning again per
        // member made a batch cost members × its size).
        var lazy = LazyScan(text: text, scan: scan)
        let messages = scan.messages.enumerated().map { index, message in
            classify(message, element: index, in: scan, text: text, lazy: &lazy, documents: &documents)
        }
        withExtendedLifetime(documents) {
            if scan.depth - 1 > connection.limits.maxNestingDepth {
                replyError(depthError, id: scan.isArray ? nil : messages.first?.idView, target: .single)
            } else if scan.isArray {
                if acceptsBatch(of: messages.count) { handleBatch(messages) }
            } else if let message = messages.first {
                handle(message, target: .single)
            }
        }
    }

    private func classify(_ message: JSONScanner.Message, element: Int, in scan: JSONScanner.Scan,
                          text: UnsafeRawBufferPointer, lazy: inout LazyScan, documents: inout [JanssonValue]) -> IncomingMessage {
        let messageText = UnsafeRawBufferPointer(rebasing: text[message.range])
        if let document = try? JSONParser.parse(messageText) {
            // A member of the batch that jansson holds: handled like any other.
            documents.append(document)
            return checkingRealID(IncomingMessage(document.view), element: element, scan: &lazy, keep: &documents)
        }
        let problems = scan.unholdable.filter { message.range.contains($0.range.lowerBound) }
        guard let first = problems.first else {
            return .invalid(idView: nil, reason: "the message could not be read")
        }
        let what = Self.describe(first, in: text)
        guard message.isObject else {
            return .invalid(idView: nil, reason: "expected a request object, got \(what)")
        }
        if let params = message.params, problems.allSatisfy({ params.contains($0.range.lowerBound) }),
           let envelope = envelope(of: message, replacingParams: params, in: text) {
            documents.append(envelope)
            let classified = checkingRealID(IncomingMessage(envelope.view), element: element, scan: &lazy, keep: &documents)
            switch classified {
            case .request(_, let idView, let method, _):
                if connection.dispatcher.entry(named: method) == nil {
                    return .unholdable(idView: idView, error: .methodNotFound(method), answered: true)
                }
                return .unholdable(idView: idView, error: .invalidParams(Self.fieldError(first, in: text)), answered: true)
            case .notification:
                return .unholdable(idView: nil, error: .invalidParams(Self.fieldError(first, in: text)), answered: false)
            case .invalid, .unholdable, .response, .unreadableResponse:
                return classified
            }
        }
        // A notification or a response is never answered, whatever it holds.
        if let stub = stubbed(message, problems: problems, in: text) {
            switch IncomingMessage(stub.view) {
            case .notification:
                return .unholdable(idView: nil, error: .invalidRequest("\(Self.place(first)) holds \(what)"), answered: false)
            case .response(let id, _, _):
                // The request it answers fails rather than waiting for ever (an id that could not be
                // read reads as null here, which answers no request: the response is dropped).
                return .unreadableResponse(id: id, reason: "\(Self.place(first)) holds \(what), which the host cannot represent")
            default:
                break
            }
        }
        let idView = message.id.flatMap { readableID($0, element: element, in: text, documents: &documents) }
        return .unholdable(idView: idView, error: .invalidRequest("\(Self.place(first)) holds \(what), which the host cannot represent"),
                           answered: true)
    }

    /// The message with each token jansson cannot hold replaced (a number by `null`, a member name by
    /// a placeholder no envelope member has), parsed: enough to tell a notification or a response.
    private func stubbed(_ message: JSONScanner.Message, problems: [JSONScanner.Unholdable],
                         in text: UnsafeRawBufferPointer) -> JanssonValue? {
        var bytes: [UInt8] = []
        var position = message.range.lowerBound
        for (index, problem) in problems.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }).enumerated()
        where problem.range.lowerBound >= position {
            bytes += text[position..<problem.range.lowerBound]
            switch problem.kind {
            case .integerBeyond64Bits, .realBeyondDouble, .loneSurrogate: bytes += "null".utf8
            case .nulInMemberName, .loneSurrogateInMemberName: bytes += "\"\\u0001 unholdable \(index)\"".utf8
            }
            position = problem.range.upperBound
        }
        bytes += text[position..<message.range.upperBound]
        return try? JSONParser.parse(bytes)
    }

    /// The message with `{}` (or `[]`) for its params, parsed: the envelope jansson can hold.
    private func envelope(of message: JSONScanner.Message, replacingParams params: Range<Int>,
                          in text: UnsafeRawBufferPointer) -> JanssonValue? {
        let empty: [UInt8] = text[params.lowerBound] == UInt8(ascii: "[") ? [0x5B, 0x5D] : [0x7B, 0x7D]
        let bytes = Array(text[message.range.lowerBound..<params.lowerBound]) + empty + Array(text[params.upperBound..<message.range.upperBound])
        return try? JSONParser.parse(bytes)
    }

    /// The id at `range` as jansson reads it, when it can be echoed exactly: a string, null, an integer
    /// within 64 bits, or a real that reads back as sent; else `nil` (answered with id `null`).
    private func readableID(_ range: Range<Int>, element: Int, in text: UnsafeRawBufferPointer,
                            documents: inout [JanssonValue]) -> JSONView? {
        guard let value = Self.readableID(UnsafeRawBufferPointer(rebasing: text[range])) else { return nil }
        documents.append(value)
        return value.view
    }

    /// The id token `token` as jansson reads it, when it can be echoed exactly: a string, null, an
    /// integer within 64 bits, or a real that reads back as sent (held as its text); else `nil`.
    static func readableID(_ token: UnsafeRawBufferPointer) -> JanssonValue? {
        guard let value = try? JSONParser.parse(token) else { return nil }
        switch value.view.kind {
        case .string, .integer, .null: return value
        case .real: return JSONNumberText.realReadsBackExactly(token) ? RawNumber.make(token) : nil
        default: return nil
        }
    }

    /// `error.data.field` for a problem inside params: its path below `params`.
    private static func fieldError(_ problem: JSONScanner.Unholdable, in text: UnsafeRawBufferPointer) -> JSONFieldError {
        let expected = switch problem.kind {
        case .integerBeyond64Bits: "an integer within 64 bits"
        case .realBeyondDouble: "a number within the range of a double"
        case .nulInMemberName: "member names without \\u0000"
        case .loneSurrogate, .loneSurrogateInMemberName: Self.loneSurrogateAdvice
        }
        let field = path(problem.path.drop { $0 != .key("params") }.dropFirst())
        return JSONFieldError(field: field, expected: expected, got: excerpt(quoting: problem, in: text))
    }

    /// What a client should send instead of a lone surrogate escape.
    static let loneSurrogateAdvice = "a character, not a lone UTF-16 surrogate escape: send the pair, or U+FFFD"

    /// The excerpt an error quotes: the token, or for a lone surrogate the escape alone (`\ud83d`).
    private static func excerpt(quoting problem: JSONScanner.Unholdable, in text: UnsafeRawBufferPointer) -> String {
        let token = UnsafeRawBufferPointer(rebasing: text[problem.range])
        switch problem.kind {
        case .loneSurrogate, .loneSurrogateInMemberName:
            guard let escape = LoneSurrogateEscapes.find(in: token).first else { return excerpt(token) }
            return excerpt(UnsafeRawBufferPointer(rebasing: token[escape]))
        case .integerBeyond64Bits, .realBeyondDouble, .nulInMemberName:
            return excerpt(token)
        }
    }

    private static func describe(_ problem: JSONScanner.Unholdable, in text: UnsafeRawBufferPointer) -> String {
        let token = excerpt(quoting: problem, in: text)
        return switch problem.kind {
        case .integerBeyond64Bits: "an integer beyond 64 bits (\(token))"
        case .realBeyondDouble: "a number beyond the range of a double (\(token))"
        case .nulInMemberName: "a member name with \\u0000 (\(token))"
        case .loneSurrogate: "a lone UTF-16 surrogate escape (\(token)), not a character"
        case .loneSurrogateInMemberName: "a member name with a lone UTF-16 surrogate escape (\(token))"
        }
    }

    /// `"extra.list[2]"`, or `the message`; a long path (member names are the client's) is quoted only
    /// in part (``JSONFieldError/excerpt(_:limit:)``).
    private static func place(_ problem: JSONScanner.Unholdable) -> String {
        let components = problem.path.first.map { if case .index = $0 { true } else { false } } == true
            ? problem.path.dropFirst() : problem.path[...]
        return components.isEmpty ? "the message" : "\"\(JSONFieldError.excerpt(path(components)))\""
    }

    /// `items[2].name`.
    private static func path(_ components: some Collection<JSONScanner.PathComponent>) -> String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// At most 40 bytes of a token, for an error message.
    static func excerpt(_ token: UnsafeRawBufferPointer) -> String {
        token.count <= 40 ? String(decoding: token, as: UTF8.self) : String(decoding: token.prefix(40), as: UTF8.self) + "…"
    }
}
