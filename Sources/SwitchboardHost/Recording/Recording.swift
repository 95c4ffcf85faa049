#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SwitchboardCore

/// A recording as ``FrameRecorder`` writes it, read back for `switchboard replay`.
///
/// The first line may be a header `{"switchboard": "recording", "version": 1, "args": {…}, "volatile": […]}`;
/// each other line is `{"t", "dir": "in"|"out", "frame"}` (lines with `"text"` instead, and blank lines,
/// are skipped). `volatile` lists paths of answers and notifications that may differ (``VolatilePath``).
public struct Recording: Sendable {
    public struct Entry: Sendable {
        public var milliseconds: Int64
        public var isInput: Bool
        public var frame: JSONValue
    }

    /// The flags the recorded host ran with (`now`, `backend`, `chatUser`, `account`, `simulate`).
    public var args: JSONObject
    public var volatile: [VolatilePath]
    public var entries: [Entry]

    public init(args: JSONObject = [:], volatile: [VolatilePath] = [], entries: [Entry]) {
        self.args = args
        self.volatile = volatile
        self.entries = entries
    }

    /// Reads a recording's text; a line that is not JSON, or a path that cannot be read, is an error
    /// naming its line.
    public init(text: String) throws(RecordingError) {
        var args = JSONObject()
        var volatile: [VolatilePath] = []
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: String(line))
            } catch {
                throw .cannotRead(path: "", reason: "line \(number + 1) is not JSON: \(error.problem) at column \(error.column)")
            }
            if value["switchboard"] == "recording" {
                args = value["args"]?.objectValue ?? [:]
                let listed = value["volatile"] ?? []
                guard let items = listed.arrayValue else {
                    throw .cannotRead(path: "", reason: "line \(number + 1): volatile is not an array of paths")
                }
                for (index, item) in items.enumerated() {
                    guard let text = item.stringValue, let path = VolatilePath(text) else {
                        throw .cannotRead(path: "", reason: "line \(number + 1): volatile[\(index)] is not a path such as result.items[*].date")
                    }
                    volatile.append(path)
                }
                continue
            }
            guard let frame = value["frame"], let direction = value["dir"]?.stringValue, ["in", "out"].contains(direction) else { continue }
            entries.append(Entry(milliseconds: value["t"]?.int64Value ?? 0, isInput: direction == "in", frame: frame))
        }
        self.init(args: args, volatile: volatile, entries: entries)
    }

    /// Reads the recording at `path`: a regular file (a FIFO or a device is refused without waiting).
    public init(path: String) throws(RecordingError) {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, limit: Self.maxFileBytes)
        } catch {
            throw .cannotRead(path: path, reason: error.description)
        }
        do {
            try self.init(text: String(decoding: bytes, as: UTF8.self))
        } catch .cannotRead(_, let reason) {
            throw .cannotRead(path: path, reason: reason)
        } catch {
            throw error
        }
    }

    /// The largest recording `replay` reads.
    public static let maxFileBytes = 1 << 30
}
