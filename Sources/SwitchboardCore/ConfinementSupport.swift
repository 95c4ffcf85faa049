#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// What this machine offers to confine a child process (plugins): Landlock's ABI, and user and network
/// namespaces for unprivileged processes. Probed once.
///
/// `SWITCHBOARD_TEST_NO_LANDLOCK=1` in the host's environment makes it report no Landlock: a test-only switch
/// for the path of a kernel without it.
public enum ConfinementSupport {
    /// Landlock's ABI version, or nil when the kernel offers none (or the test switch is on).
    public static let landlockABI: Int? = {
        if let forced = getenv("SWITCHBOARD_TEST_NO_LANDLOCK"), String(cString: forced) == "1" { return nil }
        let abi = Int(sb_landlock_abi())
        return abi > 0 ? abi : nil
    }()

    /// Whether a child may get user namespaces of its own (so its process count is its own).
    public static let userNamespaces: Bool = sb_probe_namespaces(0) == 0

    /// Whether a child may get a network namespace of its own (only loopback), in a user namespace.
    public static let networkNamespaces: Bool = sb_probe_namespaces(1) == 0

    /// The kernel's release (`uname -r`), named when Landlock is missing.
    public static let kernelRelease: String = {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        return withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }()

    /// Why plugins cannot be confined here, or nil when they can.
    public static var unavailableReason: String? {
        landlockABI == nil ? "the kernel (Linux \(kernelRelease)) offers no Landlock" : nil
    }
}
