#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A scratch folder for one test, removed with it.
final class ScratchFolder {
    let path: String

    init(_ label: String) throws {
        path = try BinaryHarness.temporaryFolder(label)
    }

    deinit { _ = system("rm -rf \(shellQuoted(path))") }

    func read(_ name: String) -> String? {
        Self.contents(of: path + "/" + name)
    }

    static func contents(of path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        return readAll(file)
    }

    func write(_ text: String, to name: String) {
        guard let file = fopen(path + "/" + name, "wb") else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        fclose(file)
    }
}

/// The built binary in a tmux pane: a real terminal for the interactive prompt. Keys go in with
/// `send-keys`; what the pane shows is read with `capture-pane`, polled until the expected text appears
/// (a hang guard, never a speed check). Each pane has a tmux server of its own (`-L`), killed at the end.
final class TmuxPane {
    let socket: String

    /// With `keepingScreen`, the pane stays when its program exits, showing what it printed last
    /// (``waitForProgramExit()``).
    init(arguments: [String], environment: [String: String], unset: [String] = ["NO_COLOR"], keepingScreen: Bool = false) throws {
        socket = "sbtest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let env = ["env"] + unset.flatMap { ["-u", $0] } + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let command = (env + [BinaryHarness.binaryPath] + arguments).map(shellQuoted).joined(separator: " ")
        guard tmux("new-session -d -s sb -x 160 -y 60 \(shellQuoted(command))") == 0 else {
            throw BinaryHarness.Failure("tmux could not start a session (is tmux installed? scripts/bootstrap installs it)")
        }
        // Set before the program can exit: it waits for keys.
        if keepingScreen, tmux("set-option -t sb remain-on-exit on") != 0 {
            throw BinaryHarness.Failure("tmux could not keep the pane")
        }
    }

    deinit { _ = tmux("kill-server", quiet: true) }

    /// Types `text` literally, then the named keys (`Enter`, `Tab`, `C-d`, `Up`, …).
    func type(_ text: String, then keys: String...) {
        if !text.isEmpty { _ = tmux("send-keys -t sb -l \(shellQuoted(text))") }
        if !keys.isEmpty { _ = tmux("send-keys -t sb " + keys.joined(separator: " ")) }
    }

    /// What the pane shows, its history included; with `escapes`, with the colour codes.
    func capture(escapes: Bool = false) -> String {
        guard let pipe = popen("tmux -L \(socket) capture-pane -p -J -S -2000 \(escapes ? "-e " : "")-t sb 2>/dev/null", "r") else { return "" }
        defer { pclose(pipe) }
        return readAll(pipe)
    }

    /// Polls the pane until `condition` holds for what it shows; fails after the harness's hang guard.
    @discardableResult
    func waitFor(_ what: String, escapes: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
                 _ condition: (String) -> Bool) throws -> String {
        BinaryHarness.expectOffCooperativePool(sourceLocation: sourceLocation)
        let deadline = BinaryHarness.nowMilliseconds() + BinaryHarness.answerTimeout
        while true {
            let screen = capture(escapes: escapes)
            if condition(screen) { return screen }
            if BinaryHarness.nowMilliseconds() > deadline {
                throw BinaryHarness.Failure("the pane never showed \(what); it shows:\n\(screen)")
            }
            usleep(20_000)  // the interval between two looks at the pane, not a wait for the host
        }
    }

    func waitFor(text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try waitFor("\"\(text)\"", sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Waits until the program in the pane has exited (the session, and so the server, ends with it).
    func waitForExit() throws {
        BinaryHarness.expectOffCooperativePool()
        let deadline = BinaryHarness.nowMilliseconds() + BinaryHarness.answerTimeout
        while tmux("has-session -t sb", quiet: true) == 0 {
            if BinaryHarness.nowMilliseconds() > deadline { throw BinaryHarness.Failure("the prompt did not exit:\n\(capture())") }
            usleep(20_000)
        }
    }

    /// Waits until the program in a pane made `keepingScreen` has exited; the pane still shows its output.
    func waitForProgramExit() throws {
        try waitFor("the program's exit") { _ in
            guard let pipe = popen("tmux -L \(socket) display -p -t sb '#{pane_dead}' 2>/dev/null", "r") else { return false }
            defer { pclose(pipe) }
            return readAll(pipe).hasPrefix("1")
        }
    }

    /// Sends `signal` to the program running in the pane.
    func signalProgram(_ signal: Int32) throws {
        guard let pipe = popen("tmux -L \(socket) display -p -t sb '#{pane_pid}' 2>/dev/null", "r") else {
            throw BinaryHarness.Failure("tmux could not say the pane's process")
        }
        let shown = readAll(pipe)
        pclose(pipe)
        guard let pane = shown.split(whereSeparator: \.isWhitespace).first.flatMap({ pid_t($0) }) else {
            throw BinaryHarness.Failure("tmux said the pane's process is \(shown)")
        }
        // The pane runs `sh -c 'env … switchboard …'`; env execs the program, and the shell may exec it too.
        let children = ScratchFolder.contents(of: "/proc/\(pane)/task/\(pane)/children") ?? ""
        let pid = children.split(separator: " ").first.flatMap { pid_t($0) } ?? pane
        guard kill(pid, signal) == 0 else { throw BinaryHarness.Failure("kill(\(pid)) failed: errno \(errno)") }
    }

    private func tmux(_ arguments: String, quiet: Bool = false) -> Int32 {
        system("tmux -L \(socket) \(arguments)\(quiet ? " 2>/dev/null" : "")")
    }
}

func shellQuoted(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
}

private func readAll(_ file: UnsafeMutablePointer<FILE>) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
