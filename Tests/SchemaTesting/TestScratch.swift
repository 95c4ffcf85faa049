#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where tests put their files: every folder a test makes is inside one folder of this test process,
/// `/tmp/switchboard-PID`, removed when the process exits. A run leaves nothing in /tmp (a test
/// process killed by a hang guard aside), and tests need not remove what they made — a database's
/// reading connections, a spawned host's files, may still be in use when a test's body ends.
public enum TestScratch {
    /// This process's folder, made on first use; removed at exit.
    public static let root: String = {
        let path = "/tmp/switchboard-\(getpid())"
        mkdir(path, 0o700)
        atexit { try? FileManager.default.removeItem(atPath: TestScratch.root) }
        return path
    }()

    /// A fresh folder `ROOT/PREFIX-XXXXXX`.
    public static func folder(_ prefix: String) throws -> String {
        var template = Array("\(root)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else { throw ScratchFailure(errno: errno) }
        return made
    }

    /// A path for a file of this process that does not exist yet: `ROOT/NAME`.
    public static func path(_ name: String) -> String { "\(root)/\(name)" }

    public struct ScratchFailure: Error, CustomStringConvertible {
        let errno: Int32
        public var description: String { "mkdtemp under \(TestScratch.root) failed: errno \(errno)" }
    }
}
