#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import SwitchboardCore

/// A sandbox ready for one spawn: the child's confinement (its Landlock ruleset open until
/// ``close()``), the variables that point the plugin at its private folders, and what `plugins.list` shows.
struct AppliedSandbox: Sendable {
    let confinement: sb_confinement
    let environment: [String: String]
    /// For `network.allow` in a namespace: the host's end of the channel the child sends the proxy's
    /// listening socket on, and the allow-list.
    let proxyChannel: Int32?
    let allow: [NetworkAddress]
    /// The private temporary folder (``PrivateTemporaryFolders``), emptied or removed when the run ends.
    let temporaryFolder: String
    /// The run's pids cgroup: kept for the plugin's next run if the run leaves it empty, else removed once empty.
    let cgroup: PidsCgroupLeaf?
    let status: PluginSandboxStatus

    /// For a run that makes its namespaces: the host's end of the channel the child sends them on.
    let namespaceChannel: Int32?

    /// Closes the ruleset, the child's ends of the channels and the copies of kept namespaces (after the spawn).
    func close() {
        if confinement.ruleset_fd >= 0 { Glibc.close(confinement.ruleset_fd) }
        cgroup?.closeProcs()
        if confinement.proxy_port > 0 { Glibc.close(confinement.proxy_channel) }
        if confinement.send_namespaces != 0 { Glibc.close(confinement.namespace_channel) }
        if confinement.enter_namespaces != 0 {
            Glibc.close(confinement.user_ns_fd)
            if confinement.network_namespace != 0 { Glibc.close(confinement.net_ns_fd) }
        }
    }

    /// Closes the host's ends of the channels (a start that failed).
    func abandonChannels() {
        if let proxyChannel { Glibc.close(proxyChannel) }
        if let namespaceChannel { Glibc.close(namespaceChannel) }
    }
}

/// Why a plugin could not be confined.
struct SandboxFailure: Error, Sendable, CustomStringConvertible {
    /// `sandboxUnavailable` (no Landlock here) or `sandboxFailed` (a step of the confinement failed).
    var reason: String
    var description: String
}

/// Landlock's access rights, by the ABI that brought them.
enum LandlockAccess {
    static let execute: UInt64 = 1 << 0, writeFile: UInt64 = 1 << 1, readFile: UInt64 = 1 << 2, readDir: UInt64 = 1 << 3
    static let makeChar: UInt64 = 1 << 6, makeBlock: UInt64 = 1 << 11, truncate: UInt64 = 1 << 14, ioctlDev: UInt64 = 1 << 15
    static let bindTCP: UInt64 = 1 << 0, connectTCP: UInt64 = 1 << 1
    static let scopeAbstractSocket: UInt64 = 1 << 0, scopeSignal: UInt64 = 1 << 1

    /// Every file-system right ABI `abi` knows: 13 in ABI 1, REFER from 2, TRUNCATE from 3, IOCTL_DEV from 5.
    static func fileSystem(abi: Int) -> UInt64 {
        let count: UInt64 = abi >= 5 ? 16 : abi >= 3 ? 15 : abi == 2 ? 14 : 13
        return (1 << count) - 1
    }
}

extension SandboxPlan {
    /// Makes the folders and the Landlock ruleset for ABI `abi` (or reuses `plugin`'s kept one, ``LandlockRulesets``);
    /// `temporaryParent` holds the private temporary folder (``PrivateTemporaryFolders``); the run enters `plugin`'s
    /// kept `namespaces` if there are any of its kind, else makes them and sends them back; its process count is
    /// bounded by `cgroup` where it got one, else by RLIMIT_NPROC where that holds. Throws `sandboxFailed` when the ruleset cannot be built.
    func apply(abi: Int, temporaryParent: String = "/tmp", temporaries: PrivateTemporaryFolders, rulesets: LandlockRulesets,
               plugin: String, namespaces: PluginNamespaces, cgroup: Result<PidsCgroupLeaf, PidsCgroupLeaf.LeafFailure>) throws(SandboxFailure) -> AppliedSandbox {
        var plan = self
        if !Self.makeFolders(dataFolder) {
            plan.write.removeAll { $0 == dataFolder }
            plan.missing.append(dataFolder)
        }
        guard let temporary = temporaries.take(for: plugin, in: temporaryParent) else {
            throw SandboxFailure(reason: "sandboxFailed", description: "cannot make a private temporary folder in \(temporaryParent): \(String(cString: strerror(errno)))")
        }
        var handedOver = false
        defer { if !handedOver { temporaries.end(temporary, of: plugin) } }
        plan.write.append(temporary)

        let handledFS = LandlockAccess.fileSystem(abi: abi)
        let confineTCP = abi >= 4 && network != .any
        let handledNet = confineTCP ? LandlockAccess.bindTCP | LandlockAccess.connectTCP : 0
        let scoped = abi >= 6 ? LandlockAccess.scopeAbstractSocket | LandlockAccess.scopeSignal : 0
        let readAccess = (LandlockAccess.execute | LandlockAccess.readFile | LandlockAccess.readDir) & handledFS
        let writeAccess = handledFS & ~(LandlockAccess.makeChar | LandlockAccess.makeBlock)
        let deviceAccess = (LandlockAccess.readFile | LandlockAccess.writeFile | LandlockAccess.truncate | LandlockAccess.ioctlDev) & handledFS
        var notes: [String] = []
        // network.allow: a namespace of its own whose only way out is the host's proxy, where the kernel allows.
        let proxied = if case .allow = network { ConfinementSupport.networkNamespaces } else { false }
        var ports: [UInt64] = []
        if proxied, confineTCP {
            ports = [UInt64(NetworkProxy.port)]
        } else if !proxied, case .allow(let entries) = network, confineTCP {
            ports = Set(entries.compactMap { NetworkAddress($0)?.port }).sorted().map(UInt64.init)
            notes.append("network.allow is enforced by port only (no network namespace here for the proxy): TCP connections go to the listed ports on any host, UDP is not covered")
        }
        let pathRules = plan.read.map { LandlockRulesets.PathRule(path: $0, access: readAccess) }
            + plan.write.map { LandlockRulesets.PathRule(path: $0, access: writeAccess) }
            + plan.devices.map { LandlockRulesets.PathRule(path: $0, access: deviceAccess) }
        let opened = try rulesets.open(for: plugin, rules: .init(handledFileSystem: handledFS, handledNetwork: handledNet, scoped: scoped,
                                                                 paths: pathRules, ports: ports))
        let ruleset = opened.fd
        plan.missing += opened.unreachable
        var channel: [Int32] = [-1, -1]
        if proxied {
            guard socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &channel) == 0 else {
                Glibc.close(ruleset)
                throw SandboxFailure(reason: "sandboxFailed", description: "socketpair for the network proxy: \(String(cString: strerror(errno)))")
            }
        }
        let networkNamespace = (network == .none && ConfinementSupport.networkNamespaces) || proxied
        let root = getuid() == 0
        let userNamespace = ConfinementSupport.userNamespaces && (networkNamespace || !root)
        var confinement = sb_confinement()
        confinement.user_namespace = userNamespace ? 1 : 0
        confinement.network_namespace = networkNamespace ? 1 : 0
        confinement.proxy_port = proxied ? NetworkProxy.port : 0
        confinement.proxy_channel = channel[1]
        confinement.no_new_privs = 1
        confinement.ruleset_fd = ruleset
        var namespaceChannel: [Int32] = [-1, -1]
        // Kept for later runs, but not with the proxy: its listener is bound in the namespace for each run, and
        // the last run's may not be closed yet.
        if userNamespace, !proxied {
            if let kept = namespaces.entering(plugin, network: networkNamespace) {
                confinement.enter_namespaces = 1
                confinement.user_ns_fd = kept.user
                confinement.net_ns_fd = kept.network ?? -1
            } else if socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &namespaceChannel) == 0 {
                confinement.send_namespaces = 1
                confinement.namespace_channel = namespaceChannel[1]
            }
        }
        var limitList: [(Int32, UInt64)] = [
            (Int32(RLIMIT_CORE.rawValue), 0), (Int32(RLIMIT_NOFILE.rawValue), UInt64(limits.openFiles)),
            (Int32(RLIMIT_AS.rawValue), UInt64(limits.addressSpaceMB) << 20),
        ]
        // Processes: a pids cgroup of its own where the host could make one (it binds root too), else RLIMIT_NPROC
        // in its own user namespace (not for root, whom the kernel exempts).
        let leaf = try? cgroup.get()
        if let leaf {
            confinement.join_cgroup = 1
            confinement.cgroup_procs_fd = leaf.procsFD
        }
        let byRlimit = leaf == nil && userNamespace && !root
        if byRlimit {
            limitList.append((Int32(__RLIMIT_NPROC.rawValue), UInt64(limits.processes)))
        } else if case .failure(let failure) = cgroup {
            notes.append(root ? "limits.processes is not applied: the kernel exempts root from RLIMIT_NPROC, and there is no pids cgroup (\(failure.reason))"
                              : "limits.processes is not applied: no user namespace here, and RLIMIT_NPROC would count every process of the user; no pids cgroup (\(failure.reason))")
        }
        let processesBy: String? = leaf != nil ? "cgroup" : byRlimit ? "rlimit" : nil
        confinement.limit_count = Int32(limitList.count)
        withUnsafeMutableBytes(of: &confinement.limit_resources) { raw in
            let slots = raw.bindMemory(to: Int32.self)
            for (index, limit) in limitList.enumerated() { slots[index] = limit.0 }
        }
        withUnsafeMutableBytes(of: &confinement.limit_values) { raw in
            let slots = raw.bindMemory(to: UInt64.self)
            for (index, limit) in limitList.enumerated() { slots[index] = limit.1 }
        }
        let enforcement: String = switch network {
        case .any: "none"
        case .allow: proxied ? "proxy" : confineTCP ? "landlockTcpPorts" : "none"
        case .none: networkNamespace ? "namespace" : confineTCP ? "landlockTcp" : "none"
        }
        if network == .none, !networkNamespace {
            notes.append(confineTCP ? "network false is enforced by Landlock's TCP rules only: UDP is not covered"
                                    : "network false is not enforced: this kernel has neither network namespaces for us nor Landlock TCP rules (ABI 4)")
        }
        if case .allow = network, !proxied, !confineTCP {
            notes.append("network.allow is not enforced: Landlock ABI \(abi) has no TCP rules (ABI 4)")
        }
        let status = PluginSandboxStatus(
            enforced: true, landlockAbi: abi, read: plan.read + plan.devices, write: plan.write, missing: plan.missing,
            network: network, networkEnforcement: enforcement,
            limits: .init(addressSpaceMB: limits.addressSpaceMB, openFiles: limits.openFiles, processes: processesBy == nil ? nil : limits.processes,
                          processesBy: processesBy, processesCgroup: leaf?.path),
            notes: notes
        )
        var environment = Self.privateEnvironment(temporary: temporary, data: dataFolder)
        if proxied { environment.merge(NetworkProxy.environment) { _, proxy in proxy } }
        let allow: [NetworkAddress] = if case .allow(let entries) = network { entries.compactMap(NetworkAddress.init) } else { [] }
        handedOver = true
        return AppliedSandbox(confinement: confinement, environment: environment, proxyChannel: proxied ? channel[0] : nil, allow: allow,
                              temporaryFolder: temporary, cgroup: leaf, status: status,
                              namespaceChannel: confinement.send_namespaces != 0 ? namespaceChannel[0] : nil)
    }

    /// The plan as `plugins.list` shows it before the plugin has started.
    func plannedStatus(abi: Int?) -> PluginSandboxStatus {
        PluginSandboxStatus(enforced: abi != nil, landlockAbi: abi, read: read + devices, write: write, missing: missing,
                            network: network, networkEnforcement: nil,
                            limits: .init(addressSpaceMB: limits.addressSpaceMB, openFiles: limits.openFiles, processes: limits.processes),
                            notes: abi == nil ? [] : ["as planned: the plugin has not started yet"])
    }

    /// HOME, TMPDIR and the XDG folders pointed at the plugin's private folders.
    static func privateEnvironment(temporary: String, data: String) -> [String: String] {
        ["HOME": temporary, "TMPDIR": temporary, "XDG_CACHE_HOME": temporary, "XDG_CONFIG_HOME": temporary,
         "XDG_STATE_HOME": temporary, "XDG_RUNTIME_DIR": temporary, "XDG_DATA_HOME": data]
    }

    /// `mkdir -p` with mode 0700; whether the folder is there after.
    static func makeFolders(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return true }
        var built = ""
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o700) != 0, errno != EEXIST { return false }
        }
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
