import PostgresNIO

/// Bulk rows through `COPY table(columns) FROM STDIN` (its text format), streamed in messages of a few
/// thousand rows: a seed of a million rows is one statement, not a million.
///
/// ```swift
/// try await PostgresCopy.rows(into: "feed_item", columns: ["id", "name"], count: 1_000_000, on: connection, logger: logger) { index, row in
///     row.append(Int64(index + 1))
///     row.append(names[index])
/// }
/// ```
public enum PostgresCopy {
    /// Rows per COPY data message.
    static let batchRows = 4_096

    /// Writes rows `0..<count`, each filled by `fill`, in the transaction open on `connection`.
    /// Cancellation is checked with every message.
    public static func rows(into table: String, columns: [String], count: Int, on connection: PostgresConnection, logger: Logger,
                            progress: (Int) -> Void = { _ in }, fill: (Int, inout PostgresCopyRow) -> Void) async throws {
        guard count > 0 else { return }
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var row = PostgresCopyRow()
            for index in 0..<count {
                fill(index, &row)
                row.endRow()
                if (index + 1) % batchRows == 0 || index + 1 == count {
                    try await writer.write(row.take())
                    progress(index + 1)
                }
            }
        }
    }
}

/// The rows of one COPY message being written: fields in column order, then ``endRow()``.
public struct PostgresCopyRow {
    private var buffer = ByteBufferAllocator().buffer(capacity: 1 << 16)
    private var fields = 0

    init() {}

    public mutating func append(_ value: Int64) {
        separate()
        buffer.writeString(String(value))
    }

    /// Text, escaped as COPY's text format wants it; `nil` is SQL NULL.
    public mutating func append(_ text: String?) {
        separate()
        guard let text else {
            buffer.writeStaticString("\\N")
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        fields = 0
    }

    /// The rows written so far; the buffer starts empty again.
    mutating func take() -> ByteBuffer {
        defer { buffer = ByteBufferAllocator().buffer(capacity: 1 << 16) }
        return buffer
    }

    private mutating func separate() {
        if fields > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
        fields += 1
    }
}
