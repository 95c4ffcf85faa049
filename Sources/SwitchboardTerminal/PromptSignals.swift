import CSystemShims
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGHUP and SIGWINCH as input to the prompt's poll loop: a signal handler writes the signal's
/// number to a pipe the prompt polls, so Ctrl-C can clear the line or cancel what is running instead of
/// killing the process with the terminal still in libedit's mode.
final class PromptSignals {
    /// The prompt polls `readEnd`; ``take()`` reads what arrived.
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(PromptError) {
        var ends: [Int32] = [0, 0]
        guard sb_pipe_cloexec(&ends) == 0 else { throw .pipe(errno) }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
        readEnd = ends[0]
        writeEnd = ends[1]
        guard sb_forward_signals_to_pipe(writeEnd) == 0 else { throw .pipe(errno) }
    }

    deinit {
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { signal(number, SIG_DFL) }
        close(readEnd)
        close(writeEnd)
    }

    /// The signals that arrived since the last call, in order.
    func take() -> [Int32] {
        var numbers: [Int32] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count <= 0 { return numbers }
            numbers += chunk[..<count].map(Int32.init)
        }
    }
}
