import Jansson

/// The limits a connection enforces and advertises (in `initialize`); each breach is answered with a
/// JSON-RPC error and the stream stays in sync.
public struct ConnectionLimits: Sendable, Equatable {
    /// The largest message body accepted, in bytes.
    public var maxMessageBytes: Int
    /// The most requests one batch may hold.
    public var maxBatchLength: Int
    /// The deepest nesting of arrays and objects accepted in a message; at most
    /// ``JSONParser/maximumDepth`` (2048), the deepest jansson parses.
    public var maxNestingDepth: Int
    /// How many task-run requests may run at once; past it the connection stops reading input.
    public var maxInFlight: Int
    /// How many bytes of output may wait for the peer to read them. At the bound, answers wait (and
    /// with them the requests' slots, so the connection stops reading); notifications the host pushes
    /// on its own are dropped and reported afterwards in one `$/notificationsDropped`.
    public var maxOutputBytes: Int
    /// The most values one message may hold (``JSONValueCount``); more is refused before it is parsed.
    /// A plugin's output is not bounded so: a tool's result may be large, and the plugin is the
    /// host's own child, bounded by its message size.
    public var maxValues: Int

    public init(maxMessageBytes: Int = 16 << 20, maxBatchLength: Int = 1000, maxNestingDepth: Int = 128, maxInFlight: Int = 64,
                maxOutputBytes: Int = 4 << 20, maxValues: Int = JSONValueCount.maximum) {
        self.maxMessageBytes = maxMessageBytes
        self.maxBatchLength = maxBatchLength
        self.maxNestingDepth = min(maxNestingDepth, JSONParser.maximumDepth)
        self.maxInFlight = maxInFlight
        self.maxOutputBytes = maxOutputBytes
        self.maxValues = maxValues
    }
}
