#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore
import SwitchboardHost

/// How the host confines its plugins: what this machine offers, and whether a plugin with a policy may
/// run unconfined where Landlock is missing (`--allow-unconfined-plugins`).
public struct SandboxSettings: Sendable {
    /// Landlock's ABI here (nil: none, or forced off by the test switch).
    public var landlockABI: Int?
    /// Without Landlock, run plugins unconfined (with a warning) instead of failing them.
    public var allowUnconfined: Bool
    /// Where the private temporary folders are made.
    public var temporaryParent: String
    /// The namespaces each plugin's runs share (made by its first confined run).
    let namespaces = PluginNamespaces()
    /// The runs' private temporary folders, and the sweep of those killed hosts left.
    let temporaries = PrivateTemporaryFolders()
    /// The plugins' last Landlock rulesets.
    let rulesets = LandlockRulesets()
    /// The plans of the plugins' last starts.
    let plans = SandboxPlans()
    /// The plugins' pids cgroups (each kept across runs while they leave it empty), removed at the host's exit.
    let cgroupRuns = PidsCgroupRuns()

    public init(landlockABI: Int? = ConfinementSupport.landlockABI, allowUnconfined: Bool = false,
                temporaryParent: String = SandboxSettings.defaultTemporaryParent) {
        self.landlockABI = landlockABI
        self.allowUnconfined = allowUnconfined
        self.temporaryParent = temporaryParent
    }

    /// The host's `TMPDIR` when absolute, else `/tmp`.
    public static var defaultTemporaryParent: String {
        PluginEnvironment.hostVariable("TMPDIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// The sandbox for one start of `manifest` (nil: it runs unconfined) and what `plugins.list` shows;
    /// throws `sandboxUnavailable` for a plugin with a policy where Landlock is missing, unless allowed.
    func prepare(_ manifest: PluginManifest, program: String, searchPath: String?) throws(SandboxFailure) -> (AppliedSandbox?, PluginSandboxField) {
        guard case .confined(let policy) = manifest.sandbox else { return (nil, PluginSandboxField(status: nil)) }
        let plan = plans.plan(for: manifest, policy: policy, program: program, searchPath: searchPath)
        guard let abi = landlockABI else {
            guard allowUnconfined else { throw unavailable }
            var status = plan.plannedStatus(abi: nil)
            status.notes = ["not enforced: \(ConfinementSupport.unavailableReason ?? "no Landlock"); running unconfined by --allow-unconfined-plugins"]
            return (nil, PluginSandboxField(status: status))
        }
        let cgroup = PidsCgroupLeaf.make(in: .shared, plugin: manifest.name, processes: plan.limits.processes, runs: cgroupRuns)
        do {
            let applied = try plan.apply(abi: abi, temporaryParent: temporaryParent, temporaries: temporaries, rulesets: rulesets, plugin: manifest.name, namespaces: namespaces, cgroup: cgroup)
            return (applied, PluginSandboxField(status: applied.status))
        } catch {
            if case .success(let leaf) = cgroup {
                leaf.closeProcs()
                leaf.release(killing: true)
            }
            throw error
        }
    }

    /// How a confined plugin's `limits.processes` is held on this machine (``PidsCgroups``), for `host.status`.
    public static var processLimits: HostStatus.Processes {
        let cgroups = PidsCgroups.shared
        if let folder = cgroups.folder { return HostStatus.Processes(by: "cgroup", cgroup: folder, cgroupVersion: cgroups.version) }
        let byRlimit = ConfinementSupport.userNamespaces && getuid() != 0
        return HostStatus.Processes(by: byRlimit ? "rlimit" : "none", reason: cgroups.unavailableReason)
    }

    /// The failure of a plugin with a policy on a machine without Landlock.
    var unavailable: SandboxFailure {
        SandboxFailure(reason: "sandboxUnavailable",
                       description: "cannot be confined: \(ConfinementSupport.unavailableReason ?? "no Landlock"); it was not started (--allow-unconfined-plugins runs such plugins unconfined)")
    }

    /// What `plugins.list` shows for `manifest` before its first start.
    func planned(_ manifest: PluginManifest) -> PluginSandboxField {
        guard case .confined(let policy) = manifest.sandbox else { return PluginSandboxField(status: nil) }
        let program = manifest.command.first.flatMap { PluginEnvironment.resolveProgram($0, path: PluginEnvironment.make(for: manifest)["PATH"]) }
        let plan = SandboxPlan.make(manifest: manifest, policy: policy, program: program,
                                    searchPath: PluginEnvironment.make(for: manifest)["PATH"])
        return PluginSandboxField(status: plan.plannedStatus(abi: landlockABI))
    }
}
