#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Testing

/// What RLIMIT_NPROC does in a plugin's user namespace (its uid mapped to itself, as the host maps it), tried
/// through the spawn helper the host uses: for a user it counts only the processes in that namespace and holds;
/// root stays root there (uid 0 maps to uid 0), and the kernel exempts root from the limit, so the host does not
/// apply `limits.processes` as root and says so (Plugins/README, `plugins.list` notes).
@Suite("RLIMIT_NPROC in a plugin's user namespace")
struct ProcessLimitNamespaceTests {
    /// Forks up to 12 children that wait, and prints how many forks succeeded.
    static let forker = """
        import os
        count = 0
        try:
            for _ in range(12):
                if os.fork() == 0:
                    os.pause()
                    os._exit(0)
                count += 1
        except OSError:
            pass
        print(count, flush=True)
        os.pause()
        """

    @Test("With RLIMIT_NPROC 4 in its own user namespace: a user's child forks 3 times (itself the fourth), root's all 12")
    func processLimitInUserNamespace() throws {
        guard sb_probe_namespaces(0) == 0 else { return }  // no user namespace for us here: nothing to learn
        let candidates: [String] = ["/usr/bin/python3", "/usr/local/bin/python3"]
        let python = try #require(candidates.first { access($0, X_OK) == 0 })
        var output: [Int32] = [0, 0]
        try #require(sb_pipe_cloexec(&output) == 0)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        var confinement = sb_confinement()
        confinement.user_namespace = 1
        confinement.ruleset_fd = -1
        confinement.limit_count = 1
        confinement.limit_resources.0 = Int32(__RLIMIT_NPROC.rawValue)
        confinement.limit_values.0 = 4
        var step: Int32 = 0
        let words: [String] = [python, "-c", Self.forker]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { (arguments + environment).forEach { free($0) } }
        let pid = sb_spawn_confined(python, arguments, environment, "/", null, output[1], null, &confinement, &step)
        close(output[1])
        defer { close(output[0]) }
        try #require(pid > 0, "spawn failed at step \(step): errno \(errno)")
        defer {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.last != 10, read(output[0], &byte, 1) == 1 { line.append(byte) }
        let forked = Int(String(decoding: line.filter { (48...57).contains($0) }, as: UTF8.self))
        if getuid() == 0 {
            #expect(forked == 12, "root is exempt from RLIMIT_NPROC, in its own user namespace too")
        } else {
            #expect(forked == 3, "RLIMIT_NPROC 4 counts the user's processes in the namespace: the child and 3 forks")
        }
    }
}
