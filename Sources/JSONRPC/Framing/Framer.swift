/// Splits a byte stream into JSON-RPC message bodies: a pure state machine, bytes in, frames out.
///
/// Feed it with `consume` as chunks arrive and call `finish` at end of input. A message lying wholly inside
/// the chunk given to `consume` is handed out as a view into that chunk (no copy); only a message spanning
/// chunks is gathered in the framer's buffer, which holds at most one partial message (or header line),
/// never more than `maxMessageBytes + 1` bytes of body or 8 KiB of header. Of a body too long to deliver
/// it keeps only the first and last few KiB as it skips it (``MessageEnds``), and reports it at its end.
///
/// If the callback throws, the rest of that chunk is dropped and the framer is left at a message boundary.
public struct Framer {
    /// The longest LSP header block accepted, in bytes (line ends included).
    public static let maxHeaderBlockBytes = 8192

    /// The longest message body delivered; longer ones are reported as `.oversized` and skipped.
    public let maxMessageBytes: Int

    /// The stream's framing: given at init, or detected from the first non-whitespace bytes (nil until then).
    public private(set) var framing: Framing?

    private enum State {
        /// Before the first message: leading whitespace is skipped, then the framing is detected.
        case streamStart
        /// `buffer` holds the first bytes of the stream, a proper prefix of "content-" (any case).
        case detecting
        /// Between NDJSON lines, or inside one whose start is in `buffer`.
        case ndjsonLine
        /// Inside an NDJSON line longer than the limit: counting its bytes, storing only its ends (in `skipped`).
        case ndjsonOversized(count: Int, lastWasCR: Bool)
        /// Reading an LSP header block; `buffer` holds a partial header line.
        case lspHeaders
        /// Reading an LSP body of `length` bytes; `buffer` holds the part received so far.
        case lspBody(length: Int)
        /// Skipping the body of an oversized LSP message of `length` bytes (its ends kept in `skipped`).
        case lspSkip(length: Int, remaining: Int)
        /// After an invalid header: discarding input until "Content-Length:"; `matched` bytes of it seen.
        case lspResync(matched: Int)
    }

    private var state: State = .streamStart
    /// The partial line, header line or body that spans chunks. Nothing else is ever stored.
    private var buffer: [UInt8] = []
    /// Bytes of the current LSP header block seen so far (0: the block has not started).
    private var headerBytes = 0
    /// The current header block's Content-Length, or -1 if none yet.
    private var contentLength = -1
    /// The ends of the oversized body being skipped (empty otherwise).
    private var skipped = SkippedEnds()

    /// A buffer whose capacity grew past this is released after use rather than kept.
    private static let retainedBufferCapacity = 256 * 1024

    /// - Parameters:
    ///   - framing: the framing to use, or nil to detect it from the stream.
    ///   - maxMessageBytes: the longest message body to deliver (not negative).
    public init(framing: Framing?, maxMessageBytes: Int) {
        precondition(maxMessageBytes >= 0, "maxMessageBytes must not be negative")
        self.framing = framing
        self.maxMessageBytes = min(maxMessageBytes, Int.max / 2)
    }

    /// True while part of a message, or of an LSP header block, has been received.
    public var isMidMessage: Bool {
        switch state {
        case .streamStart, .lspResync:
            return false
        case .detecting:
            return !buffer.isEmpty
        case .ndjsonLine:
            return buffer.withUnsafeBytes { !FramingBytes.isBlank($0, 0, $0.count) }
        case .ndjsonOversized, .lspBody, .lspSkip:
            return true
        case .lspHeaders:
            return headerBytes > 0
        }
    }

    /// Bytes held internally (a partial message, header line or detection prefix).
    public var bufferedByteCount: Int { buffer.count }

    /// Bytes held of the oversized body being skipped: its first and last few KiB, at most
    /// ``MessageEnds/headCapacity`` + twice ``MessageEnds/tailCapacity`` (+2), whatever its length.
    public var skippedEndsByteCount: Int { skipped.storedByteCount }

    // MARK: - Input

    /// Processes one chunk of input, calling `handle` for each event found, in order.
    public mutating func consume(_ chunk: UnsafeRawBufferPointer, _ handle: (FramerEvent) throws -> Void) rethrows {
        let end = chunk.count
        var pos = 0
        while pos < end {
            switch state {
            case .streamStart:
                pos = FramingBytes.skipWhitespace(chunk, from: pos, to: end)
                if pos == end { return }
                if let framing {
                    enter(framing)
                } else {
                    state = .detecting
                }

            case .detecting:
                pos = detect(chunk, from: pos)

            case .ndjsonLine:
                if buffer.isEmpty {
                    pos = try scanLines(chunk, from: pos, handle)
                } else {
                    pos = try continueLine(chunk, from: pos, handle)
                }

            case .ndjsonOversized(let count, let lastWasCR):
                if let newline = FramingBytes.find(FramingBytes.lf, in: chunk, from: pos, to: end) {
                    let crBeforeNewline = newline > pos ? chunk[newline - 1] == FramingBytes.cr : lastWasCR
                    let length = count + (newline - pos) - (crBeforeNewline ? 1 : 0)
                    skipped.append(UnsafeRawBufferPointer(rebasing: chunk[pos..<newline]))
                    state = .ndjsonLine
                    pos = newline + 1
                    try emitSkipped(byteCount: length, handle)
                } else {
                    skipped.append(UnsafeRawBufferPointer(rebasing: chunk[pos..<end]))
                    state = .ndjsonOversized(count: count + (end - pos), lastWasCR: chunk[end - 1] == FramingBytes.cr)
                    pos = end
                }

            case .lspHeaders:
                pos = try readHeaderLine(chunk, from: pos, handle)

            case .lspBody(let length):
                if buffer.isEmpty && end - pos >= length {
                    let start = pos
                    pos += length
                    state = .lspHeaders
                    try handle(.message(UnsafeRawBufferPointer(rebasing: chunk[start..<pos])))
                } else {
                    if buffer.isEmpty { buffer.reserveCapacity(min(length, 1 << 20)) }
                    let take = min(end - pos, length - buffer.count)
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[pos..<(pos + take)]))
                    pos += take
                    if buffer.count == length {
                        state = .lspHeaders
                        try emitBuffer(count: length, handle)
                    }
                }

            case .lspSkip(let length, let remaining):
                let take = min(end - pos, remaining)
                skipped.append(UnsafeRawBufferPointer(rebasing: chunk[pos..<(pos + take)]))
                pos += take
                if take == remaining {
                    state = .lspHeaders
                    try emitSkipped(byteCount: length, handle)
                } else {
                    state = .lspSkip(length: length, remaining: remaining - take)
                }

            case .lspResync(let matched):
                pos = resync(chunk, from: pos, matched: matched)
            }
        }
    }

    /// Ends the input: delivers a last NDJSON line without newline, and reports a message left incomplete
    /// (`.truncated` for an LSP body, `.invalidHeader("input ended inside a header block")` for a header block,
    /// `.oversized` with the bytes that came for the body of an oversized LSP message being skipped).
    public mutating func finish(_ handle: (FramerEvent) throws -> Void) rethrows {
        if case .detecting = state {
            // Input ended while still a prefix of "content-": it never began with it, so it is NDJSON.
            framing = .ndjson
            state = .ndjsonLine
        }
        try endPartialMessage(headerReason: "input ended inside a header block", handle)
    }

    /// Gives up on a message whose bytes stopped arriving: emits .truncated (LSP body) and returns to reading headers.
    ///
    /// It ends the current message as `finish` would: a partial NDJSON line is delivered as it is (or reported
    /// `.oversized`), a partial LSP header block is reported as `.invalidHeader`, an LSP body as `.truncated`
    /// (`.oversized` if over the limit).
    /// Input that follows is read as the start of a new message. Does nothing between messages, while
    /// detecting the framing, or while resynchronising after an invalid header.
    public mutating func abandonPartialMessage(_ handle: (FramerEvent) throws -> Void) rethrows {
        if case .detecting = state { return }
        try endPartialMessage(headerReason: "incomplete header block was abandoned", handle)
    }

    private mutating func endPartialMessage(headerReason: String, _ handle: (FramerEvent) throws -> Void) rethrows {
        switch state {
        case .streamStart, .detecting, .lspResync:
            return
        case .ndjsonLine:
            if !buffer.isEmpty { try emitLine(handle) }
        case .ndjsonOversized(let count, let lastWasCR):
            state = .ndjsonLine
            try emitSkipped(byteCount: count - (lastWasCR ? 1 : 0), handle)
        case .lspHeaders:
            guard headerBytes > 0 else { return }
            resetHeaderBlock()
            try handle(.invalidHeader(headerReason))
        case .lspBody(let length):
            let received = buffer.count
            state = .lspHeaders
            let head = Array(buffer.prefix(MessageEnds.headCapacity))
            releaseBuffer()
            try head.withUnsafeBytes { head in
                try handle(.truncated(expected: length, received: received,
                                      ends: MessageEnds(head: head, tail: UnsafeRawBufferPointer(start: nil, count: 0), isWhole: false)))
            }
        case .lspSkip(let length, _):
            state = .lspHeaders
            try emitSkipped(byteCount: length, cutShort: true, handle)
        }
    }

    // MARK: - Detection

    private mutating func enter(_ framing: Framing) {
        switch framing {
        case .ndjson:
            state = .ndjsonLine
        case .lsp:
            state = .lspHeaders
            headerBytes = buffer.count
            contentLength = -1
        }
    }

    /// Matches the stream's first bytes against "content-"; on a decision the bytes from `start` are left
    /// for the chosen framing to read (with the prefix kept in `buffer` as the start of the first line).
    private mutating func detect(_ chunk: UnsafeRawBufferPointer, from start: Int) -> Int {
        let prefix = FramingBytes.lspPrefix
        var matched = buffer.count
        var index = start
        while index < chunk.count {
            guard FramingBytes.lower(chunk[index]) == prefix[matched] else {
                framing = .ndjson
                enter(.ndjson)
                return start
            }
            matched += 1
            index += 1
            if matched == prefix.count {
                framing = .lsp
                enter(.lsp)
                return start
            }
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start...]))
        return chunk.count
    }

    // MARK: - NDJSON

    /// The hot path: lines wholly inside the chunk are delivered as views into it; a final partial line is stored.
    /// Inlined into `consume`, so that the closure's context is not passed (and retained) once more.
    @inline(__always)
    private mutating func scanLines(
        _ chunk: UnsafeRawBufferPointer, from start: Int, _ handle: (FramerEvent) throws -> Void
    ) rethrows -> Int {
        let end = chunk.count
        let limit = maxMessageBytes
        var pos = start
        while let newline = FramingBytes.find(FramingBytes.lf, in: chunk, from: pos, to: end) {
            let lineStart = pos
            var lineEnd = newline
            if lineEnd > lineStart && chunk[lineEnd - 1] == FramingBytes.cr { lineEnd -= 1 }
            pos = newline + 1
            let length = lineEnd - lineStart
            if length > limit {
                try handle(.oversized(byteCount: length, limit: limit,
                                      ends: MessageEnds(body: UnsafeRawBufferPointer(rebasing: chunk[lineStart..<lineEnd]))))
            } else if !FramingBytes.isBlank(chunk, lineStart, lineEnd) {
                try handle(.message(UnsafeRawBufferPointer(rebasing: chunk[lineStart..<lineEnd])))
            }
        }
        if pos < end { storeLineStart(chunk, from: pos) }
        return end
    }

    /// Keeps the start of a line that continues in the next chunk, or starts counting it if already too long.
    /// Up to `limit + 1` bytes are stored: the extra one may be the CR dropped before the newline.
    private mutating func storeLineStart(_ chunk: UnsafeRawBufferPointer, from start: Int) {
        let total = buffer.count + (chunk.count - start)
        if total > maxMessageBytes + 1 {
            startSkipping(chunk, from: start, to: chunk.count)
            state = .ndjsonOversized(count: total, lastWasCR: chunk[chunk.count - 1] == FramingBytes.cr)
        } else {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start...]))
        }
    }

    /// Continues the line whose start is in `buffer`.
    private mutating func continueLine(
        _ chunk: UnsafeRawBufferPointer, from start: Int, _ handle: (FramerEvent) throws -> Void
    ) rethrows -> Int {
        guard let newline = FramingBytes.find(FramingBytes.lf, in: chunk, from: start, to: chunk.count) else {
            storeLineStart(chunk, from: start)
            return chunk.count
        }
        let total = buffer.count + (newline - start)
        if total > maxMessageBytes + 1 {
            let crBeforeNewline = newline > start ? chunk[newline - 1] == FramingBytes.cr : buffer.last == FramingBytes.cr
            startSkipping(chunk, from: start, to: newline)
            try emitSkipped(byteCount: total - (crBeforeNewline ? 1 : 0), handle)
        } else {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<newline]))
            try emitLine(handle)
        }
        return newline + 1
    }

    /// Delivers the line held in `buffer` (dropping a final CR) unless blank or too long, and empties the buffer.
    private mutating func emitLine(_ handle: (FramerEvent) throws -> Void) rethrows {
        var length = buffer.count
        if length > 0 && buffer[length - 1] == FramingBytes.cr { length -= 1 }
        if length > maxMessageBytes {
            defer { releaseBuffer() }
            try buffer.withUnsafeBytes { bytes in
                let body = UnsafeRawBufferPointer(rebasing: bytes[0..<length])
                try handle(.oversized(byteCount: length, limit: maxMessageBytes, ends: MessageEnds(body: body)))
            }
        } else if buffer.withUnsafeBytes({ FramingBytes.isBlank($0, 0, length) }) {
            releaseBuffer()
        } else {
            try emitBuffer(count: length, handle)
        }
    }

    // MARK: - LSP

    /// Reads (part of) one header line, acts on it if complete, and delivers what it found.
    ///
    /// The header steps below return their event rather than call `handle`: passed down into them,
    /// the closure's context was retained and released around every call, several times per message.
    private mutating func readHeaderLine(
        _ chunk: UnsafeRawBufferPointer, from start: Int, _ handle: (FramerEvent) throws -> Void
    ) rethrows -> Int {
        var step = HeaderStep()
        let next = readHeaderLine(chunk, from: start, into: &step)
        if let event = step.event { try handle(event) }
        if let tail = step.resyncTail {
            // The rest of an invalid line, from a "Content-Length:" found in it: read as a header.
            resetHeaderBlock()
            headerBytes = tail.count + 1
            let event = tail.withUnsafeBytes { apply(LSPHeaderLine($0), in: $0) }
            if let event { try handle(event) }
        }
        return next
    }

    /// What one header line led to: an event to deliver, and for an invalid line that holds
    /// "Content-Length:" further on, that part of the line, to be read as a header once the line
    /// was reported (so the next message is not lost).
    private struct HeaderStep {
        var event: FramerEvent?
        var resyncTail: [UInt8]?
    }

    private mutating func readHeaderLine(_ chunk: UnsafeRawBufferPointer, from start: Int, into step: inout HeaderStep) -> Int {
        let end = chunk.count
        var pos = start
        if headerBytes == 0 {
            pos = FramingBytes.skipWhitespace(chunk, from: pos, to: end)
            if pos == end { return end }
        }
        // Look no further than the byte that would make the block too long.
        let budget = Self.maxHeaderBlockBytes + 1 - headerBytes
        let windowEnd = pos + min(end - pos, budget)
        guard let newline = FramingBytes.find(FramingBytes.lf, in: chunk, from: pos, to: windowEnd) else {
            if windowEnd - pos == budget {
                step.event = invalidHeader("header block is longer than \(Self.maxHeaderBlockBytes) bytes")
                return windowEnd
            }
            headerBytes += end - pos
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[pos..<end]))
            return end
        }
        headerBytes += newline + 1 - pos
        if headerBytes > Self.maxHeaderBlockBytes {
            step.event = invalidHeader("header block is longer than \(Self.maxHeaderBlockBytes) bytes")
            return newline + 1
        }
        if buffer.isEmpty {
            applyHeaderLine(UnsafeRawBufferPointer(rebasing: chunk[pos..<newline]), into: &step)
        } else {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[pos..<newline]))
            let bytes = buffer
            releaseBuffer()
            bytes.withUnsafeBytes { applyHeaderLine($0, into: &step) }
        }
        return newline + 1
    }

    /// Acts on one complete header line. An invalid line that holds "Content-Length:" further on (the
    /// tail of a body that was longer than its header said, run into the next header) is reported, and
    /// headers are read again from that point, so the next message is not lost.
    private mutating func applyHeaderLine(_ bytes: UnsafeRawBufferPointer, into step: inout HeaderStep) {
        let line = LSPHeaderLine(bytes)
        guard case .invalid(let problem) = line, let start = FramingBytes.findResyncMarker(in: bytes, from: 1) else {
            step.event = apply(line, in: bytes)
            return
        }
        step.event = invalidHeader(problem.reason(in: bytes))
        step.resyncTail = Array(UnsafeRawBufferPointer(rebasing: bytes[start...]))
    }

    /// Acts on `line`, classified from `bytes` (which an invalid line's reason quotes); returns the
    /// event to deliver, if any.
    private mutating func apply(_ line: LSPHeaderLine, in bytes: UnsafeRawBufferPointer) -> FramerEvent? {
        switch line {
        case .other:
            return nil
        case .contentLength(let length):
            if contentLength >= 0 && contentLength != length {
                return invalidHeader("conflicting Content-Length headers \(contentLength) and \(length)")
            }
            contentLength = length
            return nil
        case .invalid(let problem):
            return invalidHeader(problem.reason(in: bytes))
        case .end:
            guard contentLength >= 0 else { return invalidHeader("missing Content-Length header") }
            let length = contentLength
            resetHeaderBlock()
            if length > maxMessageBytes {
                // Reported once skipped, with its ends (``MessageEnds``).
                skipped = SkippedEnds()
                state = .lspSkip(length: length, remaining: length)
                return nil
            } else if length == 0 {
                return .message(UnsafeRawBufferPointer(start: nil, count: 0))
            } else {
                state = .lspBody(length: length)
                return nil
            }
        }
    }

    /// Starts looking for the next "Content-Length:" after an invalid header block; returns its report.
    private mutating func invalidHeader(_ reason: String) -> FramerEvent {
        resetHeaderBlock()
        state = .lspResync(matched: 0)
        return .invalidHeader(reason)
    }

    /// Discards bytes until "Content-Length:" (any case) has been seen, then reads headers from there.
    private mutating func resync(_ chunk: UnsafeRawBufferPointer, from start: Int, matched alreadyMatched: Int) -> Int {
        let marker = FramingBytes.resyncMarker
        let first = marker[0]
        let end = chunk.count
        var matched = alreadyMatched
        var index = start
        while index < end {
            if matched == 0 {
                // Fast skip to the next 'c' or 'C' (the marker's first byte occurs in it only once,
                // so after a mismatch the match can only restart at the current byte).
                while index < end && FramingBytes.lower(chunk[index]) != first { index += 1 }
                if index == end { break }
            }
            let byte = FramingBytes.lower(chunk[index])
            index += 1
            if byte == marker[matched] {
                matched += 1
                if matched == marker.count {
                    releaseBuffer()
                    buffer.append(contentsOf: FramingBytes.resyncMarkerCanonical)
                    headerBytes = marker.count
                    contentLength = -1
                    state = .lspHeaders
                    return index
                }
            } else {
                matched = byte == first ? 1 : 0
            }
        }
        state = .lspResync(matched: matched)
        return end
    }

    private mutating func resetHeaderBlock() {
        headerBytes = 0
        contentLength = -1
        state = .lspHeaders
        releaseBuffer()
    }

    // MARK: - Skipping

    /// Starts skipping an NDJSON line too long to deliver, whose start is in `buffer` and goes on in
    /// `chunk[start..<end]`: its ends are kept, the buffer released.
    private mutating func startSkipping(_ chunk: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        skipped = SkippedEnds()
        buffer.withUnsafeBytes { skipped.append($0) }
        skipped.append(UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
        releaseBuffer()
    }

    /// Reports the body skipped, of `byteCount` bytes, with its ends, and lets them go (even if `handle` throws).
    private mutating func emitSkipped(byteCount: Int, cutShort: Bool = false, _ handle: (FramerEvent) throws -> Void) rethrows {
        defer { skipped = SkippedEnds() }
        let limit = maxMessageBytes
        try skipped.withEnds(length: cutShort ? skipped.count : byteCount, cutShort: cutShort) { ends in
            try handle(.oversized(byteCount: byteCount, limit: limit, ends: ends))
        }
    }

    // MARK: - Buffer

    /// Delivers `buffer[0..<count]` as a message, then empties the buffer (even if `handle` throws).
    private mutating func emitBuffer(count: Int, _ handle: (FramerEvent) throws -> Void) rethrows {
        defer { releaseBuffer() }
        try buffer.withUnsafeBytes { bytes in
            try handle(.message(UnsafeRawBufferPointer(rebasing: bytes[0..<count])))
        }
    }

    /// Empties the buffer, keeping its storage unless it grew large for one big message.
    private mutating func releaseBuffer() {
        buffer.removeAll(keepingCapacity: buffer.capacity <= Self.retainedBufferCapacity)
    }
}

/// One LSP header line, classified. It holds no text, so classifying the lines of a well-formed
/// header block allocates nothing and touches no reference count; the reason of an invalid line is
/// written only when it is reported.
private enum LSPHeaderLine {
    /// The empty line ending the header block.
    case end
    case contentLength(Int)
    /// Any other well-formed header (Content-Type, unknown names): ignored.
    case other
    case invalid(LSPHeaderProblem)

    /// Classifies `line` (without its LF; a final CR is dropped here).
    init(_ line: UnsafeRawBufferPointer) {
        var end = line.count
        if end > 0 && line[end - 1] == FramingBytes.cr { end -= 1 }
        if end == 0 {
            self = .end
            return
        }
        guard let colon = FramingBytes.find(FramingBytes.colon, in: line, from: 0, to: end) else {
            self = .invalid(LSPHeaderProblem(kind: .noColon, start: 0, end: end))
            return
        }
        var nameStart = 0
        var nameEnd = colon
        while nameStart < nameEnd && FramingBytes.isSpaceOrTab(line[nameStart]) { nameStart += 1 }
        while nameEnd > nameStart && FramingBytes.isSpaceOrTab(line[nameEnd - 1]) { nameEnd -= 1 }
        if nameStart == nameEnd {
            self = .invalid(LSPHeaderProblem(kind: .noName, start: 0, end: end))
            return
        }
        for index in nameStart..<nameEnd where !FramingBytes.isTokenByte(line[index]) {
            self = .invalid(LSPHeaderProblem(kind: .notAHeader, start: 0, end: end))
            return
        }
        guard FramingBytes.isContentLengthName(UnsafeRawBufferPointer(rebasing: line[nameStart..<nameEnd])) else {
            self = .other
            return
        }
        self = Self.parseContentLength(line, from: colon + 1, to: end)
    }

    /// ASCII digits with optional surrounding spaces or tabs, fitting in Int: `line[start..<end]`.
    private static func parseContentLength(_ line: UnsafeRawBufferPointer, from start: Int, to end: Int) -> LSPHeaderLine {
        var start = start
        var end = end
        while start < end && FramingBytes.isSpaceOrTab(line[start]) { start += 1 }
        while end > start && FramingBytes.isSpaceOrTab(line[end - 1]) { end -= 1 }
        guard start < end else { return .invalid(LSPHeaderProblem(kind: .noValue, start: start, end: end)) }
        var length = 0
        var overflowed = false
        for index in start..<end {
            let digit = line[index] &- 0x30
            guard digit < 10 else { return .invalid(LSPHeaderProblem(kind: .notANumber, start: start, end: end)) }
            if !overflowed {
                let (times10, overflow1) = length.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(digit))
                overflowed = overflow1 || overflow2
                length = sum
            }
        }
        if overflowed { return .invalid(LSPHeaderProblem(kind: .tooLarge, start: start, end: end)) }
        return .contentLength(length)
    }
}

/// What is wrong with an invalid header line, and where in the line the text to quote lies.
private struct LSPHeaderProblem {
    enum Kind {
        case noColon, noName, notAHeader, noValue, notANumber, tooLarge
    }

    let kind: Kind
    let start: Int
    let end: Int

    /// The sentence reported for the line `line` this problem was found in.
    func reason(in line: UnsafeRawBufferPointer) -> String {
        let quoted = FramingBytes.quoted(UnsafeRawBufferPointer(rebasing: line[start..<end]))
        switch kind {
        case .noColon: return "header line \(quoted) has no colon"
        case .noName: return "header line \(quoted) has no name"
        case .notAHeader: return "header line \(quoted) is not a header"
        case .noValue: return "Content-Length header has no value"
        case .notANumber: return "Content-Length \(quoted) is not a number"
        case .tooLarge: return "Content-Length \(quoted) is too large"
        }
    }
}
