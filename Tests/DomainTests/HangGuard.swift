#if canImport(Glibc)
import Glibc
#endif

/// How long a hang guard waits before failing a test: 30 s, times `SWITCHBOARD_TEST_TIME_SCALE` when set
/// (scripts/sanitize sets it: under a sanitizer everything runs several times slower).
let hangGuardSeconds = 30 * (getenv("SWITCHBOARD_TEST_TIME_SCALE").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 1)
