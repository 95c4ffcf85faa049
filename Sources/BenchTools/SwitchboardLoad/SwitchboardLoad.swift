import ArgumentParser
import Glibc

/// `switchboard-load`: a load driver for any JSON-RPC server over stdio (the host, the C floors of
/// ../shared/bench, a plugin), the project's own counterpart of rpcbench with the same options.
///
///     switchboard-load --mode pingpong -d 3 --method host.ping --json -- .build/release/switchboard
///     switchboard-load --startup -r 30 --method host.ping -- .build/release/switchboard
///     switchboard-load --mode push --window 1 -n 300 --method chat.send \
///         --params '{"roomId":"dm-u0-u1","text":"hi","clientMessageId":"%ID%"}' \
///         --subscribe-params '{"roomId":"dm-u0-u1"}' --subscriber-arg=--chat-user --subscriber-arg=u1 \
///         -- .build/release/switchboard --db chat.sqlite
///
/// It writes one line: requests/s, latency percentiles (µs, write of a request → read of its
/// answer), bytes, the server's CPU per request and its peak RSS (wait4); `--json` writes the same as
/// one JSON object in rpcbench's shape. Exit status 0 when every answer was a result, 1 otherwise.
@main
struct SwitchboardLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard-load",
        abstract: "Drives a stdio JSON-RPC server and measures it (rpcbench's options).")

    @OptionGroup var options: LoadOptions

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let params: String?
        if let text = options.params {
            let source = text.hasPrefix("@") ? try readWholeFile(String(text.dropFirst())) : text
            guard let compact = JSONWriterText.compact(source) else { throw ValidationError("--params is not JSON") }
            params = compact
        } else {
            params = nil
        }
        let template = RequestTemplate(method: options.method, params: params, framing: options.framing)
        let preamble = try options.preamble.map { path throws(LoadError) in try Preamble(path: path) } ?? Preamble()
        let succeeded: Bool
        switch options.effectiveMode {
        case .pipelined, .pingpong:
            succeeded = print(load: try LoadRun(options: options, template: template, preamble: preamble).run())
        case .startup:
            succeeded = print(startup: StartupRun(options: options, template: template, preamble: preamble).run())
        case .push:
            succeeded = print(push: try PushRun(options: options, template: template).run())
        }
        if !succeeded { throw ExitCode(1) }
    }

    private func common(_ report: Report, mode: String) {
        if let label = options.label { report.set("label", label) }
        report.set("mode", mode)
        report.set("framing", options.framing.rawValue)
        report.set("method", options.method)
        report.set("pin", options.pin.rawValue)
    }

    private func print(load outcome: LoadRun.Outcome) -> Bool {
        let counts = outcome.counts
        let elapsed = Double(outcome.elapsedNanoseconds) / 1e9
        let report = Report()
        common(report, mode: options.effectiveMode.rawValue)
        report.set("window", options.effectiveMode == .pingpong ? 1 : options.window)
        report.set("warmup", Int(options.warmup ?? 1000))
        report.set("requests", counts.completed)
        report.set("ok", counts.ok)
        let errors = counts.errors + outcome.warmupCounts.malformed + outcome.warmupCounts.unmatched
        report.set("errors", errors)
        report.set("rpc_errors", counts.rpcErrors)
        report.set("bad_frames", counts.malformed)
        report.set("unmatched_ids", counts.unmatched)
        report.set("notifications", counts.notifications)
        report["elapsed_s"] = elapsed
        report["rps"] = elapsed > 0 ? Double(counts.completed) / elapsed : 0
        report.set("latency_us", Report.latencies(outcome.latencies))
        report.set("tx_bytes", outcome.bytesWritten)
        report.set("rx_bytes", outcome.bytesRead)
        report.set("server", Report.server(outcome.exit, peakRSS: outcome.peakRSSKilobytes, measuredCPU: outcome.measuredCPUSeconds, completed: counts.completed))
        report["driver_cpu_s"] = Report.driverCPUSeconds
        let succeeded = outcome.failure == nil && errors == 0 && outcome.exit?.succeeded == true
        report.set("status", outcome.failure ?? (succeeded ? "ok" : "errors"))
        emit(report)
        return succeeded
    }

    private func print(startup outcome: StartupRun.Outcome) -> Bool {
        let report = Report()
        common(report, mode: "startup")
        let first = outcome.samples.map(\.firstAnswerMilliseconds)
        report.set("runs", options.runs)
        report.set("ok", outcome.samples.count)
        report.set("errors", outcome.failed)
        report["first_response_ms_p50"] = median(first)
        report["first_response_ms_min"] = first.min() ?? 0
        report["first_response_ms_max"] = first.max() ?? 0
        report["exit_ms_p50"] = median(outcome.samples.map(\.exitMilliseconds))
        report["maxrss_kb_p50"] = median(outcome.samples.map { Double($0.peakRSSKilobytes) })
        report.set("maxrss_kb_max", outcome.samples.map(\.peakRSSKilobytes).max() ?? 0)
        report["cpu_ms_p50"] = median(outcome.samples.map(\.cpuMilliseconds))
        report.set("status", outcome.failure ?? "ok")
        emit(report)
        return outcome.failed == 0
    }

    private func print(push outcome: PushRun.Outcome) -> Bool {
        let counts = outcome.counts
        let elapsed = Double(outcome.elapsedNanoseconds) / 1e9
        let report = Report()
        common(report, mode: "push")
        report.set("window", options.window)
        report.set("notification", options.notification)
        report.set("requests", UInt64(outcome.latencies.count))
        report.set("ok", counts.ok)
        report.set("errors", counts.errors)
        report["elapsed_s"] = elapsed
        report["rps"] = elapsed > 0 ? Double(outcome.latencies.count) / elapsed : 0
        report.set("latency_us", Report.latencies(outcome.latencies))
        let pushed = UInt64(outcome.latencies.count)
        report.set("server", Report.server(outcome.exit, peakRSS: outcome.peakRSSKilobytes, measuredCPU: outcome.measuredCPUSeconds, completed: pushed))
        report.set("subscriber", Report.server(outcome.subscriberExit, peakRSS: outcome.subscriberPeakRSSKilobytes, measuredCPU: outcome.subscriberCPUSeconds, completed: pushed))
        report["driver_cpu_s"] = Report.driverCPUSeconds
        let succeeded = outcome.failure == nil && counts.errors == 0 && outcome.exit?.succeeded == true
            && outcome.subscriberExit?.succeeded == true
        report.set("status", outcome.failure ?? (succeeded ? "ok" : "errors"))
        emit(report)
        return succeeded
    }

    /// The JSON object, or one human line of its main figures.
    private func emit(_ report: Report) {
        let line = Array(((options.json ? report.text : HumanLine(report).text) + "\n").utf8)
        line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}

/// A whole file's text (`--params @FILE`).
func readWholeFile(_ path: String) throws(LoadError) -> String {
    guard let file = fopen(path, "r") else { throw LoadError("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
