#if canImport(Glibc)
import Glibc
#endif

/// Where services read the time: the system clock, or a fixed one (`--now`) so harnesses get the same
/// timestamps and relative dates on every run.
public protocol WallClock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    func now() -> Int64
}

/// The real time.
public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

/// Always the same instant.
public struct FixedClock: WallClock {
    public let instant: Int64

    public init(milliseconds: Int64) { instant = milliseconds }

    public func now() -> Int64 { instant }
}
