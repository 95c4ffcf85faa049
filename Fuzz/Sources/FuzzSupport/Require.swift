#if canImport(Glibc)
import Glibc
#endif

/// Checks a property of the code under test; if it does not hold, says which and aborts, so that
/// libFuzzer saves the input as a crash.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    printError("property failed at \(file):\(line): \(message())")
    abort()
}

/// Writes one line to stderr (stdout is libFuzzer's).
public func printError(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
}
