#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Logging
import Synchronization
import SystemCalls

/// How a run ends: the plugin's stdout closes (it exited, crashed, broke the protocol, or was stopped).
extension PluginSession {
    /// Reads the plugin's stdout until it ends, then fails what waits with the reason and reports.
    func readOutput(into reader: MessageReader) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let fd = process.outputFD
        var line = OpenLine(limit: settings.limits.maxMessageBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(fd, buffer.baseAddress, buffer.count) } }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { reader.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if line.grows(by: buffer[..<count]) {
                breakProtocol("a message over \(settings.limits.maxMessageBytes) bytes without its end")
            }
        }
        close(fd)
        // Its stdout is closed: it is ending, or will be made to.
        var status = process.waitBlocking(milliseconds: settings.shutdownGraceMilliseconds)
        if status == nil {
            process.signalGroup(SIGKILL)
            status = process.waitBlocking(milliseconds: 60_000)
        }
        let (expected, reported) = state.withLock { ($0.stopping, $0.violation) }
        // A plugin that exited on its own closed its stdin by exiting: that is its crash. Only one our
        // SIGKILL ended had closed it while it ran.
        let violation = reported == Self.closedStdin && status != .signaled(SIGKILL) ? nil : reported
        let tail = stderr.lastLines(waitingUpTo: 500)
        let error: ResponseError
        if let violation {
            error = PluginError.protocolViolation(name, detail: violation, status: status, stderrTail: tail)
        } else if expected {
            error = PluginError.unavailable(name, reason: "stopped", message: "the plugin was stopped")
        } else {
            error = PluginError.crashed(name, status: status ?? .signaled(SIGKILL), stderrTail: tail)
        }
        state.withLock { $0.endError = error }
        // The supervisor learns first, so a call made once these are answered starts a new run.
        onEnd(self, error, expected && violation == nil)
        connection.closeOutgoing(failing: error)
        reader.finishInput()
        sink.close()
        if !expected || violation != nil {
            settings.logger.warning("plugin \(name): \(error.message)")
        }
    }

    /// The plugin wrote something that is not JSON-RPC, or too much at once: stop it.
    func breakProtocol(_ detail: String) {
        let first = state.withLock { state in
            defer { if state.violation == nil { state.violation = detail } }
            return state.violation == nil
        }
        guard first else { return }
        settings.logger.warning("plugin \(name) broke the protocol: \(detail); stopping it")
        process.signalGroup(SIGKILL)
    }

    static let closedStdin = "it stopped reading its stdin: it closed it"

    /// A write to the plugin's stdin failed (`EPIPE`): unless the host is stopping it, the plugin closed
    /// its stdin and can answer no call again. It is stopped at once, its calls failing with
    /// `reason: "protocol"`, rather than each waiting for its time-out.
    func stdinClosed() {
        // Stopping it, or it exited (a crash closes its stdin too): its end says what happened.
        guard !state.withLock({ $0.stopping }), process.exitStatus == nil else { return }
        breakProtocol(Self.closedStdin)
    }

    /// Stops the plugin: closes its stdin, waits the grace time, then SIGTERM, then SIGKILL.
    func stop() async {
        state.withLock { $0.stopping = true }
        sink.close()
        _ = await process.terminate(graceMilliseconds: settings.shutdownGraceMilliseconds)
    }
}
