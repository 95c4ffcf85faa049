#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore
import SystemCalls

/// Wakes subscriptions when the database file is written by any process: the source of
/// cross-process change notifications on SQLite.
///
/// A switchboard process touches `PATH.lock` after each commit (``AppDatabase/signalChanges(to:)``);
/// any SQLite writer writes `PATH-wal` (a checkpoint writes `PATH`). The watcher listens with inotify
/// on the database's folder (those files come and go) and posts ``ChangeSignal`` once per batch of
/// events; listeners then read the change log. It never polls while inotify works; where inotify is
/// unavailable it falls back to comparing the files' size and times every ``fallbackPollMilliseconds``.
///
/// - Important: The watch is set up by ``init(path:signal:mode:)``, not by ``run()``: a commit made
///   after the watcher exists is seen however late its thread starts (inotify queues the event). A
///   subscription may read its start state before the watcher exists (the host makes it on its own
///   thread, setting a watch on a large folder takes milliseconds): whoever makes it posts once it
///   exists, so a commit made between the two is not missed. When inotify drops events (its queue
///   overflowed), the watcher posts too.
///
/// Another store (a server database with LISTEN/NOTIFY) can post the same signal; subscriptions do
/// not know which source woke them.
public final class DatabaseWatcher: ChangeSource {
    public static let fallbackPollMilliseconds: Int32 = 500

    /// How changes are noticed.
    public enum Mode: Sendable {
        /// inotify, else polling.
        case automatic
        /// Polling only (what happens where inotify is unavailable; for tests).
        case polling
    }

    private let signal: ChangeSignal
    /// Written to end ``run()``.
    private let stopPipe: (read: Int32, write: Int32)
    /// The inotify descriptor, watching the folder since `init`; -1 when polling.
    private let inotify: Int32
    /// The names in the folder whose events post: the database, its WAL, the announcement file.
    private let names: Set<String>
    /// When polling: the files compared, and their stamps when the watcher was made.
    private let polledFiles: [String]
    private let initialStamps: [[Int]]

    /// Starts watching at once (see the type's note); ``run()`` then waits for the events.
    public init(path: String, signal: ChangeSignal, mode: Mode = .automatic) {
        self.signal = signal
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            stopPipe = (fds[0], fds[1])
        } else {
            stopPipe = (-1, -1)
        }
        let (folder, base) = Self.split(path)
        let announcement = AppDatabase.announcementPath(for: path)
        names = [base, base + "-wal", Self.split(announcement).name]
        polledFiles = [path, path + "-wal", announcement]
        var fd = mode == .polling ? -1 : inotify_init1(Int32(IN_CLOEXEC))
        if fd >= 0, inotify_add_watch(fd, folder, Self.mask) < 0 {
            close(fd)
            fd = -1
        }
        inotify = fd
        initialStamps = fd >= 0 ? [] : polledFiles.map(Self.stamp)
    }

    deinit {
        if stopPipe.read >= 0 { close(stopPipe.read) }
        if stopPipe.write >= 0 { close(stopPipe.write) }
        if inotify >= 0 { close(inotify) }
    }

    static let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)

    /// Ends ``run()``.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// Watches until ``stop()``; blocks, so run it on a thread of its own.
    public func run() {
        if inotify >= 0 {
            watch(inotify)
        } else {
            poll(files: polledFiles, last: initialStamps)
        }
    }

    private func watch(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while waitReadable(fd, timeout: -1) {
            let count = buffer.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(fd, buffer.baseAddress, buffer.count) } }
            if count < 0, errno == EAGAIN { continue }
            guard count > 0 else { return }
            // IN_Q_OVERFLOW: events were dropped, ours perhaps among them.
            if Self.events(in: buffer[..<count]).contains(where: { $0.mask & UInt32(IN_Q_OVERFLOW) != 0 || names.contains($0.name) }) {
                signal.post()
            }
        }
    }

    private func poll(files: [String], last initial: [[Int]]) {
        var last = initial
        while !stopRequested(timeout: Self.fallbackPollMilliseconds) {
            let now = files.map(Self.stamp)
            if now != last {
                last = now
                signal.post()
            }
        }
    }

    /// Waits until `fd` is readable (true) or ``stop()`` was called (false).
    private func waitReadable(_ fd: Int32, timeout: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        let ready = SystemCall.retrying { Glibc.poll(&fds, 2, timeout) }
        return ready > 0 && fds[1].revents == 0
    }

    private func stopRequested(timeout: Int32) -> Bool {
        var fds = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        return Glibc.poll(&fds, 1, timeout) > 0
    }

    /// The file names of the inotify events in `bytes` (each: wd, mask, cookie, len, then `len` name bytes).
    public static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        events(in: bytes).map(\.name).filter { !$0.isEmpty }
    }

    /// The inotify events in `bytes`: each one's mask and file name ("" for none); a cut one is left out.
    static func events(in bytes: ArraySlice<UInt8>) -> [(mask: UInt32, name: String)] {
        var events: [(mask: UInt32, name: String)] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        func word(at start: Int) -> Int { bytes[start..<(start + 4)].reversed().reduce(0) { $0 << 8 | Int($1) } }
        while offset + header <= bytes.endIndex {
            let length = word(at: offset + 12)
            let nameStart = offset + header
            let nameEnd = min(nameStart + length, bytes.endIndex)
            let name = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            events.append((UInt32(truncatingIfNeeded: word(at: offset + 4)), String(decoding: name, as: UTF8.self)))
            offset = nameEnd
        }
        return events
    }

    /// Size, modification time and change time, or zeros when the file is missing.
    static func stamp(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [0, 0, 0, 0] }
        return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ctim.tv_nsec)]
    }

    /// The folder and the file name of `path` ("." for a bare name).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
