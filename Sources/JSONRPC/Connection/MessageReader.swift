import CJansson
import Jansson
import Logging

/// The input side of a connection: turns the peer's bytes into frames, parses and classifies each
/// message once, and dispatches it. Owned by one thread (the input thread); not `Sendable`.
///
/// Replies that are ready at once (parse errors, cheap methods) are gathered while a chunk of input
/// is processed and written together when it is done, one write per chunk.
public final class MessageReader {
    public let connection: Connection
    private var framer: Framer
    private var replies: [UInt8] = []
    private let writer = JSONWriter(initialCapacity: 64 << 10)
    /// The body of a response written from its parts (``ResponseText``), reused.
    private var responseBody: [UInt8] = []

    public init(connection: Connection) {
        self.connection = connection
        self.framer = Framer(framing: connection.framing, maxMessageBytes: connection.limits.maxMessageBytes)
    }

    /// True once `exit` was received: the caller stops reading.
    public var isStopped: Bool { connection.requestedExitCode != nil }

    /// True while part of a message has arrived and the rest has not.
    public var isMidMessage: Bool { framer.isMidMessage }

    /// Processes bytes from the peer.
    public func receive(_ chunk: UnsafeRawBufferPointer) {
        detectFraming { $0.consume(chunk) { _ in } }
        WriteCoalescing.gathering {
            framer.consume(chunk) { handle($0) }
            flushReplies()
        }
    }

    /// Processes the end of input: a last message without its newline, a truncated one. Requests
    /// sent to the peer can no longer be answered, so they fail now.
    public func finishInput() {
        detectFraming { $0.finish { _ in } }
        framer.finish { handle($0) }
        flushReplies()
        // No framing ever showed: what was held goes out as NDJSON, the default.
        if connection.framing == nil { connection.recordFraming(.ndjson) }
        connection.closeOutgoing()
        connection.close()
    }

    /// Gives up on a message whose remaining bytes stopped arriving, answering with an error.
    public func abandonPartialMessage() {
        framer.abandonPartialMessage { handle($0) }
        flushReplies()
    }

    /// Replies must be framed like the stream, which the framer learns from the first bytes: a copy of
    /// it looks ahead at the chunk (only until the framing is known), since the framer cannot be read
    /// while it hands out events.
    private func detectFraming(_ lookAhead: (inout Framer) -> Void) {
        guard connection.framing == nil else { return }
        var probe = framer
        lookAhead(&probe)
        if let framing = probe.framing { connection.recordFraming(framing) }
    }

    /// Writes the replies gathered so far, and the frames this thread gathered for other outputs (also
    /// before the input thread waits for a slot or for room).
    func flushReplies() {
        WriteCoalescing.flushGathered()
        guard !replies.isEmpty else { return }
        connection.sink.writeFromInput(replies)
        replies.removeAll(keepingCapacity: true)
    }

    // MARK: Frames

    private func handle(_ event: FramerEvent) {
        guard !isStopped else { return }
        switch event {
        case .message(let bytes):
            handleMessage(bytes)
        case .oversized(let byteCount, let limit, let ends):
            replyRefused(.invalidRequest(
                "message of \(byteCount) bytes exceeds the limit of \(limit) bytes",
                data: ["size": .integer(Int64(byteCount)), "limit": .integer(Int64(limit))]
            ), ends: ends)
        case .invalidHeader(let reason):
            replyError(.parseError("invalid message header: \(reason)"), id: nil, target: .single)
        case .truncated(let expected, let received, let ends):
            // Under its request's id when its first bytes show one: a client waits for that id.
            replyRefused(.parseError(
                "message truncated: Content-Length was \(expected) bytes but only \(received) arrived"
            ), ends: ends)
        }
    }

    /// Answers a message refused unread with its request's id when its ends show it (``RefusedMessageID``), else `null`.
    private func replyRefused(_ error: ResponseError, ends: MessageEnds) {
        let id = RefusedMessageID.token(in: ends).flatMap { $0.withUnsafeBytes(Self.readableID) }
        withExtendedLifetime(id) { replyError(error, id: id?.view, target: .single) }
    }

    private func handleMessage(_ bytes: UnsafeRawBufferPointer, surrogatesReplaced: Bool = false) {
        let valueLimit = connection.limits.maxValues
        if JSONValueCount.mayExceed(bytes.count, limit: valueLimit), JSONValueCount.count(bytes, stoppingAfter: valueLimit) > valueLimit {
            replyRefused(.invalidRequest("message holds more than \(valueLimit) values, the limit", data: ["limit": .integer(Int64(valueLimit))]),
                         ends: MessageEnds(body: bytes))
            return
        }
        let document: JanssonValue
        do {
            document = try JSONParser.parse(bytes)
        } catch where error.isDepthLimit {
            replyError(depthError, id: nil, target: .single)
            return
        } catch where error.mayBeValidJSON {
            handleUnholdable(bytes, parseError: error)
            return
        } catch where !surrogatesReplaced && LoneSurrogateEscapes.present(in: bytes) {
            handleLoneSurrogates(bytes, parseError: error)
            return
        } catch {
            replyError(.parseError(error, in: bytes), id: nil, target: .single)
            return
        }
        withExtendedLifetime(document) { handleDocument(document.view, text: bytes) }
    }

    /// Text jansson refused that holds lone surrogate escapes: a client's message is answered naming
    /// where (``handleUnholdable(_:parseError:)``); a plugin's answer is read again with each as U+FFFD.
    private func handleLoneSurrogates(_ bytes: UnsafeRawBufferPointer, parseError: JSONParseError) {
        switch connection.loneSurrogates {
        case .refuse:
            handleUnholdable(bytes, parseError: parseError)
        case .replace(let onReplaced):
            // Only answers: a request or notification of the peer is refused as a client's, so that
            // nothing is stored with a character it did not send. Text that is not JSON anyway is a
            // stray line, not worth the note.
            guard let scan = JSONScanner.scan(bytes),
                  scan.messages.allSatisfy({ $0.method == nil && ($0.result != nil || $0.error != nil) }),
                  let replaced = LoneSurrogateEscapes.replacedByReplacementCharacter(bytes) else {
                return handleUnholdable(bytes, parseError: parseError)
            }
            onReplaced(replaced.count)
            replaced.text.withUnsafeBytes { handleMessage($0, surrogatesReplaced: true) }
        }
    }

    /// Handles a parsed message; `root` is valid only during the call.
    private func handleDocument(_ root: JSONView, text: UnsafeRawBufferPointer) {
        let depthLimit = connection.limits.maxNestingDepth
        if root.nestingDepth(stoppingAfter: depthLimit + 1) > depthLimit {
            let id = root.kind == .object ? root["id"].flatMap { RequestID($0) == nil ? nil : $0 } : nil
            replyError(depthError, id: id, target: .single)
            return
        }
        if root.kind == .array {
            handleBatch(root, text: text)
        } else {
            var scan = LazyScan(text: text)
            var keep: [JanssonValue] = []
            let message = checkingRealID(IncomingMessage(root), element: 0, scan: &scan, keep: &keep)
            withExtendedLifetime(keep) { handle(message, target: .single) }
        }
    }

    var depthError: ResponseError {
        let limit = connection.limits.maxNestingDepth
        return .invalidRequest("message nests deeper than the limit of \(limit) levels", data: ["limit": .integer(Int64(limit))])
    }

    private func handleBatch(_ batch: JSONView, text: UnsafeRawBufferPointer) {
        guard acceptsBatch(of: batch.count) else { return }
        var scan = LazyScan(text: text)
        var keep: [JanssonValue] = []
        let messages = (0..<batch.count).map { index in
            checkingRealID(IncomingMessage(batch[index]!), element: index, scan: &scan, keep: &keep)
        }
        withExtendedLifetime(keep) { handleBatch(messages) }
    }

    /// False (and answered) when a batch of `count` is empty or over the limit.
    func acceptsBatch(of count: Int) -> Bool {
        guard count > 0 else {
            replyError(.invalidRequest("empty batch"), id: nil, target: .single)
            return false
        }
        let limit = connection.limits.maxBatchLength
        guard count <= limit else {
            replyError(.invalidRequest(
                "batch of \(count) messages exceeds the limit of \(limit)", data: ["size": .integer(Int64(count)), "limit": .integer(Int64(limit))]
            ), id: nil, target: .single)
            return false
        }
        return true
    }

    func handleBatch(_ messages: [IncomingMessage]) {
        let answered = messages.filter(\.expectsReply).count
        guard answered > 0 else {
            messages.forEach { handle($0, target: .none) }
            return
        }
        let collector = BatchCollector(size: answered)
        var slot = 0
        for message in messages {
            if message.expectsReply {
                handle(message, target: .batch(collector, index: slot))
                slot += 1
            } else {
                handle(message, target: .none)
            }
        }
    }

    func handle(_ message: IncomingMessage, target: ReplyTarget) {
        switch message {
        case .invalid(let idView, let reason):
            replyError(.invalidRequest(reason), id: idView, target: target)
        case .unholdable(let idView, let error, let answered):
            if answered {
                replyError(error, id: idView, target: target)
            } else {
                connection.logger.debug("ignored a notification: \(error.message)")
            }
        case .response(let id, let result, let error):
            connection.receiveResponse(id: id, result: result, error: error)
        case .unreadableResponse(let id, let reason):
            connection.receiveUnreadableResponse(id: id, reason: reason)
        case .notification(let method, let params):
            dispatch(id: nil, idView: nil, method: method, params: params, target: .none)
        case .request(let id, let idView, let method, let params):
            dispatch(id: id, idView: idView, method: method, params: params, target: target)
        }
    }

    // MARK: Replies on the input thread

    func reply(_ message: JanssonValue, target: ReplyTarget) {
        switch target {
        case .single:
            connection.frame(message, writer: writer, into: &replies)
        case .batch(let collector, let index):
            if let array = collector.add(message, at: index) {
                connection.frame(array, writer: writer, into: &replies)
                if collector.hasHeldActions {
                    // Completed here, by an immediate member: its tasks' after-answer work runs now,
                    // in a task (the input thread never waits on it), after the array is written.
                    flushReplies()
                    collector.runHeldActionsLater()
                }
            }
        case .none:
            break
        }
    }

    /// Answers `result` to the request with id `id`: a single answer is written from its parts, with
    /// no envelope object (``ResponseText``).
    func replyResult(_ result: JanssonValue, id: JSONView, target: ReplyTarget) {
        guard case .single = target else { return reply(OutgoingMessage.response(id: id, result: result), target: target) }
        responseBody.removeAll(keepingCapacity: true)
        ResponseText.append(id: id, result: result.view, writer: writer, to: &responseBody)
        responseBody.withUnsafeBytes { (connection.framing ?? .ndjson).appendFrame(body: $0, to: &replies) }
    }

    func replyError(_ error: ResponseError, id: JSONView?, target: ReplyTarget) {
        reply(OutgoingMessage.errorResponse(id: id, error: error), target: target)
    }
}

extension IncomingMessage {
    /// Requests and invalid messages are answered; notifications and responses are not.
    var expectsReply: Bool {
        switch self {
        case .request, .invalid: true
        case .unholdable(_, _, let answered): answered
        case .notification, .response, .unreadableResponse: false
        }
    }
}
