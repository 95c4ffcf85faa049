import CJansson
import Glibc
import Jansson

/// Requests to one server with a window of them outstanding (1: ping-pong), for a count or a duration,
/// after an optional preamble and a warm-up; latencies are write-of-request → read-of-answer.
struct LoadRun {
    let options: LoadOptions
    let template: RequestTemplate
    let preamble: Preamble

    struct Outcome {
        var counts = ResponseCounts()
        var warmupCounts = ResponseCounts()
        var latencies: [UInt64] = []
        var elapsedNanoseconds: UInt64 = 0
        var measuredCPUSeconds: Double?
        var bytesWritten = 0
        var bytesRead = 0
        var failure: String?
        var exit: ProcessExit?
        var peakRSSKilobytes: Int?
    }

    init(options: LoadOptions, template: RequestTemplate, preamble: Preamble) {
        self.options = options
        self.template = template
        self.preamble = preamble
        framing = options.framing
        showLimit = options.show
        stallNanoseconds = UInt64(options.timeout * 1e9)
    }

    // Copies of options the loop reads: ArgumentParser's property wrappers are slow to read.
    private let framing: Framing
    private let showLimit: Int
    private let stallNanoseconds: UInt64

    func run() throws(LoadError) -> Outcome {
        if options.pin != .none { pinToCPU(0) }
        let process = try ServerProcess(command: options.command, stderrPath: options.serverStderr)
        if options.pin == .split { pinToCPU(1) }
        var outcome = Outcome()
        let window = options.effectiveMode == .pingpong ? 1 : options.window
        var nextID = UInt64(max(preamble.largestID + 1, 1))
        do {
            try preamble.send(to: process, framing: options.framing, timeout: options.timeout)
            let warmup = options.warmup ?? 1000
            if warmup > 0 {
                var ignored: [UInt64]? = nil
                _ = try exchange(process, count: warmup, duration: nil, window: window, nextID: &nextID,
                                 counts: &outcome.warmupCounts, latencies: &ignored)
            }
            let cpuBefore = processCPUSeconds(process.pid)
            let (written, read) = (process.bytesWritten, process.bytesRead)
            var latencies: [UInt64]? = []
            latencies?.reserveCapacity(1 << 20)
            outcome.elapsedNanoseconds = try exchange(
                process, count: options.duration == nil ? options.count : nil,
                duration: options.duration.map { UInt64($0 * 1e9) }, window: window, nextID: &nextID,
                counts: &outcome.counts, latencies: &latencies)
            if let cpuBefore, let cpuAfter = processCPUSeconds(process.pid) {
                outcome.measuredCPUSeconds = cpuAfter - cpuBefore
            }
            process.samplePeakRSS()
            outcome.latencies = latencies ?? []
            outcome.bytesWritten = process.bytesWritten - written
            outcome.bytesRead = process.bytesRead - read
        } catch {
            outcome.failure = error.description
        }
        outcome.peakRSSKilobytes = process.peakRSSKilobytes
        outcome.exit = process.finish(timeout: options.exitTimeout)
        return outcome
    }

    /// Sends `count` requests (or for `duration`), keeping up to `window` outstanding, and returns the time
    /// from the first write to the last answer read.
    private func exchange(_ process: ServerProcess, count: UInt64?, duration: UInt64?, window: Int,
                          nextID: inout UInt64, counts: inout ResponseCounts,
                          latencies: inout [UInt64]?) throws(LoadError) -> UInt64 {
        // Outstanding requests by id modulo a power of two: (id, time written); id 0 marks a free slot.
        var ringSize = 1
        while ringSize < window * 4 { ringSize <<= 1 }
        let mask = UInt64(ringSize - 1)
        var slots = [(id: UInt64, sentAt: UInt64)](repeating: (0, 0), count: ringSize)
        var issued: UInt64 = 0
        var outstanding = 0
        var stopped = false
        let start = monotonicNanoseconds()
        var lastAnswer = start
        let stall = stallNanoseconds
        while true {
            let readAt = process.lastReadAt
            while let incoming = try nextIncoming(process) {
                guard case .response(let id, let hasResult) = incoming.kind else {
                    tally(incoming, into: &counts)
                    continue
                }
                counts.show(incoming, limit: showLimit)
                guard let id, id > 0, slots[Int(UInt64(id) & mask)].id == UInt64(id) else {
                    counts.unmatched += 1
                    counts.reportOnce("an answer with an id not in flight", incoming)
                    continue
                }
                let slot = Int(UInt64(id) & mask)
                latencies?.append(readAt - slots[slot].sentAt)
                slots[slot].id = 0
                outstanding -= 1
                lastAnswer = readAt
                if hasResult {
                    counts.ok += 1
                } else {
                    counts.rpcErrors += 1
                    counts.reportOnce("an error answer", incoming)
                }
            }
            if !stopped {
                let now = monotonicNanoseconds()
                if let count, issued >= count { stopped = true }
                if let duration, now - start >= duration { stopped = true }
                while !stopped, outstanding < window {
                    let slot = Int(nextID & mask)
                    if slots[slot].id != 0 { break }
                    let id = nextID
                    process.enqueue { template.write(id: id, into: $0) }
                    slots[slot] = (id, now)
                    nextID += 1
                    issued += 1
                    outstanding += 1
                    if let count, issued >= count { stopped = true }
                }
                process.writeQueued()
            }
            if stopped, outstanding == 0 { return lastAnswer - start }
            if process.reachedEnd { throw LoadError("the server closed its stdout before answering everything") }
            if process.writeFailed { throw LoadError("writing to the server failed (it closed its stdin or died)") }
            if monotonicNanoseconds() - process.lastProgressAt > stall { throw LoadError("timeout: nothing moved") }
            ServerProcess.pump([process], milliseconds: 100)
        }
    }

    private func nextIncoming(_ process: ServerProcess) throws(LoadError) -> Incoming? {
        do {
            return try process.nextMessage(framing)
        } catch {
            throw LoadError("framing error: \(error.description)")
        }
    }

    private func tally(_ incoming: Incoming, into counts: inout ResponseCounts) {
        switch incoming.kind {
        case .notification: counts.notifications += 1
        case .serverRequest: counts.serverRequests += 1
        case .malformed:
            counts.malformed += 1
            counts.reportOnce("a frame that is not a JSON-RPC message", incoming)
        case .response: break
        }
    }
}
