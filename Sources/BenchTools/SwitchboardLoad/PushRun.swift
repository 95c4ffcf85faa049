import Glibc

/// Send → push across processes: two processes of the same server on the same data, one subscribed
/// (`--subscribe-method`), the other sent the requests. A request's latency runs from its write to
/// the sender until the subscriber's notification carrying its token (`--match`) is read. Up to
/// `--window` messages are outstanding, counted until the subscriber has them (1: one at a time).
struct PushRun {
    let options: LoadOptions
    let template: RequestTemplate

    struct Outcome {
        var counts = ResponseCounts()
        var latencies: [UInt64] = []
        var elapsedNanoseconds: UInt64 = 0
        var measuredCPUSeconds: Double?
        var subscriberCPUSeconds: Double?
        var failure: String?
        var exit: ProcessExit?
        var subscriberExit: ProcessExit?
        var peakRSSKilobytes: Int?
        var subscriberPeakRSSKilobytes: Int?
    }

    func run() throws(LoadError) -> Outcome {
        var outcome = Outcome()
        let subscriber = try ServerProcess(command: options.command + options.subscriberArg, stderrPath: options.serverStderr)
        do {
            let subscribe = try Preamble(lines: [#"{"jsonrpc":"2.0","id":1,"method":\#(JSONWriterText.quoted(options.subscribeMethod)),"params":\#(options.subscribeParams)}"#], source: "--subscribe-params")
            try subscribe.send(to: subscriber, framing: options.framing, timeout: options.timeout)
        } catch {
            outcome.failure = error.description
            outcome.subscriberExit = subscriber.finish(timeout: options.exitTimeout)
            return outcome
        }
        let sender = try ServerProcess(command: options.command, stderrPath: options.serverStderr)
        // Tokens unique to this run, so messages of earlier runs on the same data cannot be mistaken for ours.
        let tag = "load-\(getpid())-\(monotonicNanoseconds())"
        var nextID: UInt64 = 1
        do {
            var warmupCounts = ResponseCounts()
            var ignored: [UInt64] = []
            _ = try exchange(sender, subscriber, tag: tag, count: options.warmup ?? 20, duration: nil, nextID: &nextID,
                             counts: &warmupCounts, latencies: &ignored)
            let senderBefore = processCPUSeconds(sender.pid)
            let subscriberBefore = processCPUSeconds(subscriber.pid)
            var latencies: [UInt64] = []
            outcome.elapsedNanoseconds = try exchange(
                sender, subscriber, tag: tag, count: options.duration == nil ? options.count : nil,
                duration: options.duration.map { UInt64($0 * 1e9) }, nextID: &nextID, counts: &outcome.counts,
                latencies: &latencies)
            sender.samplePeakRSS()
            subscriber.samplePeakRSS()
            outcome.latencies = latencies
            if let senderBefore, let after = processCPUSeconds(sender.pid) { outcome.measuredCPUSeconds = after - senderBefore }
            if let subscriberBefore, let after = processCPUSeconds(subscriber.pid) {
                outcome.subscriberCPUSeconds = after - subscriberBefore
            }
        } catch {
            outcome.failure = error.description
        }
        outcome.peakRSSKilobytes = sender.peakRSSKilobytes
        outcome.subscriberPeakRSSKilobytes = subscriber.peakRSSKilobytes
        outcome.exit = sender.finish(timeout: options.exitTimeout)
        outcome.subscriberExit = subscriber.finish(timeout: options.exitTimeout)
        return outcome
    }

    private func exchange(_ sender: ServerProcess, _ subscriber: ServerProcess, tag: String, count: UInt64?,
                          duration: UInt64?, nextID: inout UInt64, counts: inout ResponseCounts,
                          latencies: inout [UInt64]) throws(LoadError) -> UInt64 {
        let path = options.match.split(separator: ".").map(String.init)
        var sentAt: [String: UInt64] = [:]
        var issued: UInt64 = 0
        var stopped = false
        let start = monotonicNanoseconds()
        var lastPush = start
        let stall = UInt64(options.timeout * 1e9)
        while true {
            do {
                while let incoming = try sender.nextMessage(options.framing) {
                    switch incoming.kind {
                    case .response(_, true): counts.ok += 1
                    case .response(_, false):
                        counts.rpcErrors += 1
                        counts.reportOnce("an error answer", incoming)
                    case .malformed: counts.malformed += 1
                    case .notification, .serverRequest: counts.notifications += 1
                    }
                }
                let readAt = subscriber.lastReadAt
                while let incoming = try subscriber.nextMessage(options.framing) {
                    guard case .notification(let method) = incoming.kind, method == options.notification,
                          let token = incoming.string(at: path), let sent = sentAt.removeValue(forKey: token) else { continue }
                    latencies.append(readAt - sent)
                    lastPush = readAt
                }
            } catch {
                throw LoadError("framing error: \(error.description)")
            }
            if !stopped {
                let now = monotonicNanoseconds()
                if let count, issued >= count { stopped = true }
                if let duration, now - start >= duration { stopped = true }
                while !stopped, sentAt.count < options.window {
                    let id = nextID
                    let token = "\(tag)-\(id)"
                    sender.enqueue { template.write(id: id, token: token, into: $0) }
                    sentAt[token] = now
                    nextID += 1
                    issued += 1
                    if let count, issued >= count { stopped = true }
                }
                sender.writeQueued()
            }
            if stopped, sentAt.isEmpty { return lastPush - start }
            if sender.reachedEnd || subscriber.reachedEnd { throw LoadError("a server closed its stdout") }
            if sender.writeFailed { throw LoadError("writing to the sender failed") }
            if monotonicNanoseconds() - max(sender.lastProgressAt, subscriber.lastProgressAt) > stall {
                throw LoadError("timeout: \(sentAt.count) messages never pushed")
            }
            ServerProcess.pump([sender, subscriber], milliseconds: 100)
        }
    }
}
