/// Start to first answer: spawn the server, write the preamble and one request at once, close stdin
/// (unless `--hold-stdin`), time spawn → the answer; read to the end and reap; many times.
struct StartupRun {
    let options: LoadOptions
    let template: RequestTemplate
    let preamble: Preamble

    struct Sample {
        let firstAnswerMilliseconds: Double
        let exitMilliseconds: Double
        let peakRSSKilobytes: Int
        let cpuMilliseconds: Double
    }

    struct Outcome {
        var samples: [Sample] = []
        var failed = 0
        var failure: String?
    }

    func run() -> Outcome {
        var outcome = Outcome()
        let warmup = Int(options.warmup ?? 1)
        let id = UInt64(max(preamble.largestID + 1, 1))
        for index in 0..<(warmup + options.runs) {
            let result: Result<Sample, LoadError>
            do {
                result = .success(try once(id: id))
            } catch {
                result = .failure(error)
            }
            guard index >= warmup else { continue }
            switch result {
            case .success(let sample): outcome.samples.append(sample)
            case .failure(let error):
                outcome.failed += 1
                outcome.failure = outcome.failure ?? error.description
            }
        }
        return outcome
    }

    private func once(id: UInt64) throws(LoadError) -> Sample {
        if options.pin != .none { pinToCPU(0) }
        let process = try ServerProcess(command: options.command, stderrPath: options.serverStderr)
        if options.pin == .split { pinToCPU(1) }
        process.enqueue(preamble.framed(options.framing))
        process.enqueue { template.write(id: id, into: $0) }
        process.closeInputWhenWritten = !options.holdStdin
        process.writeQueued()
        let stall = UInt64(options.timeout * 1e9)
        var answeredAt: UInt64?
        var failure: String?
        while answeredAt == nil, failure == nil {
            do {
                while let incoming = try process.nextMessage(options.framing) {
                    guard case .response(let answerID, let hasResult) = incoming.kind, answerID == Int64(id) else { continue }
                    answeredAt = monotonicNanoseconds()
                    process.samplePeakRSS()
                    if !hasResult { failure = "an error answer: \(incoming.excerpt)" }
                    break
                }
            } catch {
                failure = "framing error: \(error.description)"
            }
            if answeredAt != nil || failure != nil { break }
            if process.reachedEnd { failure = "the server exited without answering" }
            if monotonicNanoseconds() - process.lastProgressAt > stall { failure = "timeout" }
            ServerProcess.pump([process], milliseconds: 50)
        }
        process.closeInput()
        while !process.reachedEnd, monotonicNanoseconds() - process.lastProgressAt <= stall {
            ServerProcess.pump([process], milliseconds: 50)
            process.discardInbound()
        }
        let exit = process.finish(timeout: options.exitTimeout)
        if let failure { throw LoadError(failure) }
        guard let answeredAt else { throw LoadError("no answer") }
        return Sample(firstAnswerMilliseconds: Double(answeredAt - process.spawnedAt) / 1e6,
                      exitMilliseconds: Double(exit.at - process.spawnedAt) / 1e6,
                      peakRSSKilobytes: process.peakRSSKilobytes ?? exit.waitPeakRSSKilobytes, cpuMilliseconds: exit.cpuSeconds * 1e3)
    }
}
