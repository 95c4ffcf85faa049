import CJansson
import Glibc
import Jansson

/// Messages sent before the measured requests, one at a time (e.g. MCP's `initialize` and
/// `notifications/initialized`): the answer to each request is awaited and dropped.
struct Preamble {
    private(set) var messages: [(body: [UInt8], id: JanssonValue?)] = []
    /// The largest integer id among them: measured requests are numbered after it.
    private(set) var largestID: Int64 = 0

    init() {}

    /// Reads a file of JSON objects, one a line.
    init(path: String) throws(LoadError) {
        guard let file = fopen(path, "r") else {
            throw LoadError("cannot open the preamble \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var lines: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) >= 0, let line {
            lines.append(String(cString: line))
        }
        try self.init(lines: lines, source: path)
    }

    /// JSON objects, one a line; blank lines and `#` lines are skipped.
    init(lines: [String], source: String) throws(LoadError) {
        for (index, line) in lines.enumerated() {
            let text = line.filter { !$0.isNewline }
            let trimmed = text.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let value = try? JSONParser.parse(text), value.view.kind == .object else {
                throw LoadError("\(source):\(index + 1): not a JSON object")
            }
            withExtendedLifetime(value) {
                messages.append((JSONWriter.bytes(of: value.view), value.view["id"].map { JanssonValue(retaining: $0.pointer) }))
                if let id = value.view["id"]?.int64 { largestID = max(largestID, id) }
            }
        }
    }

    /// Sends each message and waits for the answer to each request.
    func send(to process: ServerProcess, framing: Framing, timeout: Double) throws(LoadError) {
        let stall = UInt64(timeout * 1e9)
        for (body, id) in messages {
            process.enqueue(framing.frame(body))
            process.writeQueued()
            guard let id else { continue }
            var answered = false
            while !answered {
                let incoming: Incoming?
                do {
                    incoming = try process.nextMessage(framing)
                } catch {
                    throw LoadError("framing error in the preamble: \(error.description)")
                }
                if let incoming {
                    guard case .response = incoming.kind, let answerID = incoming.value?.view["id"],
                          json_equal(answerID.pointer, id.pointer) != 0 else { continue }
                    if incoming.value?.view["error"] != nil {
                        throw LoadError("a preamble request failed: \(incoming.excerpt)")
                    }
                    answered = true
                    continue
                }
                if process.reachedEnd { throw LoadError("the server closed its stdout during the preamble") }
                if monotonicNanoseconds() - process.lastProgressAt > stall { throw LoadError("timeout in the preamble") }
                ServerProcess.pump([process], milliseconds: 50)
            }
        }
        while !process.outbound.isEmpty, !process.writeFailed {
            if monotonicNanoseconds() - process.lastProgressAt > stall { throw LoadError("timeout writing the preamble") }
            ServerProcess.pump([process], milliseconds: 50)
        }
    }

    /// All messages framed back to back (a start-up run writes them with its request at once).
    func framed(_ framing: Framing) -> [UInt8] {
        messages.flatMap { framing.frame($0.body) }
    }
}
