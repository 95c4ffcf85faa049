import Jansson
import JSONRPC
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The prompt's connection writes here: each frame is turned into text as it arrives (on any thread) and
/// queued for the prompt's thread, which a byte on a pipe wakes. Nothing is kept once shown, and nothing
/// waits or is dropped: a person reads at their own pace, the terminal scrolls.
final class PromptOutput: FrameSink, Sendable {
    private let queue = Mutex<[String]>([])
    /// Ids of the prompt's requests not answered yet (what Ctrl-C cancels).
    private let unanswered = Mutex<Set<Int64>>([])
    private let highlighter: JSONHighlighter
    /// The prompt polls `wakeRead`; every queued text writes one byte to `wakeWrite`.
    let wakeRead: Int32
    private let wakeWrite: Int32

    init(highlighter: JSONHighlighter) throws(PromptError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .pipe(errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        self.highlighter = highlighter
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func writeFromInput(_ bytes: [UInt8]) { receive(bytes) }
    func enqueue(_ bytes: [UInt8]) async { receive(bytes) }
    func offer(_ bytes: [UInt8]) -> Bool {
        receive(bytes)
        return true
    }
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) {}
    func flush(deadline: UInt64?) -> Bool { true }

    /// Texts queued since the last call (empties the wake-up pipe first).
    func take() -> [String] {
        var scratch = [UInt8](repeating: 0, count: 256)
        while scratch.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        return queue.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }

    /// Notes that the request `id` was sent; its answer, when it comes, takes it off again.
    func sent(_ id: Int64) {
        _ = unanswered.withLock { $0.insert(id) }
    }

    /// The ids of requests sent and not answered yet, oldest first.
    func pending() -> [Int64] {
        unanswered.withLock { $0.sorted() }
    }

    func show(_ text: String) {
        queue.withLock { $0.append(text) }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func receive(_ bytes: [UInt8]) {
        for line in bytes.split(separator: 0x0A) {
            guard let message = try? JSONValue(parsing: line) else { continue }
            if message["method"] == nil, case .integer(let id)? = message["id"] {
                _ = unanswered.withLock { $0.remove(id) }
            }
            show(text(for: message))
        }
    }

    /// A result as pretty JSON; an error as its code and message in red, then its data; a notification
    /// as its method, then its params.
    func text(for message: JSONValue) -> String {
        if let method = message["method"]?.stringValue {
            let params = message["params"].map { " " + highlighter.render($0) } ?? ""
            return highlighter.paint("• " + method, "36") + params
        }
        if let error = message["error"] {
            let code = error["code"].map { $0.jsonText() } ?? "?"
            let head = highlighter.paint("error \(code): \(error["message"]?.stringValue ?? "")", "31")
            return head + (error["data"].map { "\n" + highlighter.render($0) } ?? "")
        }
        return highlighter.render(message["result"] ?? .null)
    }
}

public enum PromptError: Error, CustomStringConvertible {
    case pipe(Int32)

    public var description: String {
        switch self {
        case .pipe(let code): "cannot make the prompt's wake-up pipe (errno \(code))"
        }
    }
}
