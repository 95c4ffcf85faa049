import CEditLine
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The prompt's line editing, history and Tab completion: libedit's readline interface in callback mode,
/// so answers can be printed above the line being typed. The one place that calls libedit.
///
/// - Important: one editor at a time, used from one thread: libedit keeps its state in globals, and its C
///   callbacks reach the editor through ``current``.
final class LineEditor {
    /// Lines typed since the last ``takeLines()``; `nil` is end of input (Ctrl-D on an empty line).
    private var lines: [String?] = []
    private let prompt: String
    private let historyPath: String?
    private let complete: (_ before: String, _ word: String) -> Completion

    nonisolated(unsafe) private static var current: LineEditor?

    init(prompt: String, historyPath: String?, complete: @escaping (_ before: String, _ word: String) -> Completion) {
        self.prompt = prompt
        self.historyPath = historyPath
        self.complete = complete
        Self.current = self
        sb_rl_configure(UnsafePointer(strdup("switchboard"))) { word, start, _ in
            LineEditor.current?.completions(word: word, start: start)
        }
        using_history()
        stifle_history(1000)
        if let historyPath { _ = read_history(historyPath) }
        resume()
    }

    /// Shows the prompt on a fresh, empty line and edits it (the terminal in libedit's raw mode).
    func resume() {
        rl_callback_handler_install(prompt) { line in
            LineEditor.current?.lines.append(line.map { String(cString: $0) })
            free(line)
        }
    }

    /// Gives the terminal back in its normal mode, e.g. to act on finished lines; ``resume()`` goes on.
    /// Removing and installing the handler each time is what starts the next line afresh in every libedit
    /// version (Python's readline module does the same).
    func suspend() {
        rl_callback_handler_remove()
    }

    /// Reads what the terminal has for us (call when stdin is readable); finished lines go to ``takeLines()``.
    func readAvailable() {
        rl_callback_read_char()
    }

    /// Takes the terminal's new size (on SIGWINCH).
    func resize() {
        rl_resize_terminal()
    }

    func takeLines() -> [String?] {
        defer { lines.removeAll() }
        return lines
    }

    /// Remembers `line` in the history and saves the history file.
    func remember(_ line: String) {
        add_history(line)
        if let historyPath { _ = write_history(historyPath) }
    }

    /// Prints `text` above the line being edited, then redraws the prompt and what was typed.
    func printAbove(_ text: String) {
        sb_flush_stdout()
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        writeAll("\r\u{1B}[K" + body + "\r\n")
        rl_forced_update_display()
    }

    /// Gives the terminal back as it was.
    func close() {
        rl_callback_handler_remove()
        if let historyPath { _ = write_history(historyPath) }
        Self.current = nil
    }

    private func completions(word: UnsafePointer<CChar>?, start: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        let buffer = sb_rl_line_buffer().map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) } ?? []
        let before = String(decoding: buffer.prefix(Int(max(0, start))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let completion = complete(before, word.map { String(cString: $0) } ?? "")
        sb_rl_completion_settings(1, completion.appendCharacter.flatMap { $0.asciiValue }.map(Int32.init) ?? 0)
        return Self.matchList(completion.candidates)
    }

    /// readline's match list: the text to put in (the candidates' common prefix), then each candidate,
    /// then NULL; all malloc'd, freed by libedit. A single match is listed as prefix and candidate both:
    /// libedit reads the third entry to tell a single match (and only then appends the character).
    private static func matchList(_ candidates: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let first = candidates.first else { return nil }
        let common = candidates.dropFirst().reduce(first) { prefix, next in
            String(zip(prefix, next).prefix { $0 == $1 }.map(\.0))
        }
        let entries = [common] + candidates
        guard let list = malloc((entries.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride)?
            .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1) else { return nil }
        for (position, entry) in entries.enumerated() { list[position] = strdup(entry) }
        list[entries.count] = nil
        return list
    }
}

/// Writes all of `text` to stdout, bypassing Swift's buffered `print`.
func writeAll(_ text: String, to fd: Int32 = STDOUT_FILENO) {
    SystemCall.writeAll(fd, Array(text.utf8))
}
