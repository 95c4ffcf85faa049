#if canImport(Glibc)
import Glibc
#endif

/// How long a hang guard waits before failing a test: 300 s (it only turns a hang into a failure; 30 s
/// failed when other suites held the cooperative pool's threads), times `SWITCHBOARD_TEST_TIME_SCALE`
/// when set (scripts/sanitize sets it: under a sanitizer everything runs several times slower).
let hangGuardSeconds = 300 * (getenv("SWITCHBOARD_TEST_TIME_SCALE").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 1)
