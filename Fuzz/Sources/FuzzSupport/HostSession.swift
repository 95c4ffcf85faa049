import JSONRPC
import Logging

/// A fresh in-process connection to a dispatcher, as the stdio host runs one: a `MessageReader`
/// fed the input, a `CollectingSink` for the output. One per input, so no state leaks between runs.
public struct HostSession {
    public let connection: Connection
    public let sink = CollectingSink()
    private let reader: MessageReader

    public init(_ dispatcher: Dispatcher, framing: Framing?, limits: ConnectionLimits = ConnectionLimits()) {
        connection = Connection(dispatcher: dispatcher, limits: limits, framing: framing, sink: sink, logger: quietLogger)
        reader = MessageReader(connection: connection)
    }

    /// Feeds `chunks` as reads would deliver them, then ends the input and waits until every request
    /// was answered; returns what was written, checked (``OutputCheck``).
    public func run(_ chunks: some Sequence<ArraySlice<UInt8>>, endInput: Bool = true) -> OutputCheck {
        for chunk in chunks where !reader.isStopped {
            chunk.withUnsafeBytes { reader.receive($0) }
        }
        if endInput { reader.finishInput() }
        require(connection.waitUntilIdle(deadline: nil), "the connection did not become idle")
        return OutputCheck(sink.bytes, framing: connection.framing)
    }
}

/// Logs nothing: the fuzzer's output is libFuzzer's.
let quietLogger = Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() }
