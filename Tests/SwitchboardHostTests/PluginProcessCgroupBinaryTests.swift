#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A plugin's `limits.processes` holds for root too: each confined run gets a pids cgroup of its own (`pids.max`)
/// where the host can make one, else RLIMIT_NPROC in its user namespace (which the kernel does not apply to root),
/// and `plugins.list` / `host.status` say which. The `jail` fixture's `bomb` forks children that stay until
/// `release`. Runs as root (CI) and as a user.
@Suite("Plugin process limit by cgroup (binary)", .serialized, .offCooperativePool)
struct PluginProcessCgroupBinaryTests {
    typealias H = BinaryHarness
    typealias Sandbox = PluginSandboxBinaryTests

    /// Whether root can make a folder in cgroup v1's pids hierarchy here (then the host must use it).
    static var rootWithPidsV1: Bool { getuid() == 0 && access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) == 0 }

    static func host(_ home: Sandbox.Home, environment: [String: String?] = [:]) throws -> SpawnedHost {
        try SpawnedHost(arguments: ["serve", "--plugins", Sandbox.fixtures, "--plugins", PluginShippedTests.repository + "/Plugins",
                                    "--backend", "memory", "--plugin-grace", "500"],
                        environment: home.environment.merging(environment) { _, given in given })
    }

    static func text(_ path: String) -> String? {
        (try? RegularFileText.read(path))?.filter { !$0.isWhitespace }
    }

    @Test("A fork bomb in a plugin stops at limits.processes (EAGAIN), root included; the host and another plugin go on; an empty cgroup is kept for the next run, one with processes left goes once they are, the host's folder at exit")
    func forkBombIsContained() throws {
        let home = try Sandbox.Home()
        let host = try Self.host(home)
        let bomb = try Sandbox.jail(host, 1, "bomb", #"{"count":100,"stay":false}"#)
        if Self.rootWithPidsV1 {
            #expect(bomb["ok"] == false && bomb["error"] == "EAGAIN" && (bomb["forked"]?.int64Value ?? 99) < 16, "root is held here: \(bomb)")
        }
        let processes = try #require(try Sandbox.call(host, 2, "host.status")["result"]?["sandbox"]?["processes"], "host.status says how processes are bounded")
        if Self.rootWithPidsV1 { #expect(processes["by"] == "cgroup", "\(processes)") }
        let limits = try #require(try Sandbox.item(host, 3, "jail")["sandbox"]?["limits"])
        switch processes["by"]?.stringValue {
        case "cgroup"?, "rlimit"?:
            #expect(limits["processes"] == 16 && limits["processesBy"] == processes["by"], "\(limits)")
            #expect(bomb["ok"] == false && bomb["error"] == "EAGAIN" && (bomb["forked"]?.int64Value ?? 99) < 16, "\(bomb)")
        default:
            // Root (or no user namespace) and no cgroup here: not applied, and said so.
            #expect(limits["processes"] == nil && limits["processesBy"] == nil, "\(limits)")
            #expect(bomb["forked"] == 100, "\(bomb)")
        }
        // The host answers, the plugin too, and another plugin starts and answers while the bomb's children stay.
        #expect(try Sandbox.call(host, 4, "host.ping")["result"] == "pong")
        #expect(try Sandbox.jail(host, 5, "env")["env"]?["HOME"] != nil)
        #expect(try Sandbox.call(host, 6, "words.count", #"{"text":"a b c"}"#)["result"]?["words"] == 3)

        guard processes["by"] == "cgroup" else {
            _ = try Sandbox.jail(host, 7, "release")
            return
        }
        // The bound is the cgroup's: pids.max is the limit and pids.current reached it.
        let cgroup = try #require(limits["processesCgroup"]?.stringValue)
        let folder = try #require(processes["cgroup"]?.stringValue)
        #expect(cgroup.hasPrefix(folder + "/jail."), "\(cgroup) in \(folder)")
        #expect(Self.text(cgroup + "/pids.max") == "16")
        #expect(Self.text(cgroup + "/pids.current") == "16")
        #expect(try Sandbox.jail(host, 7, "release")["released"] == bomb["forked"])
        #expect(Self.text(cgroup + "/pids.current") == "1", "only the plugin is left")

        // A run that left its cgroup empty hands it to the next run, whose limit holds as the first run's did.
        var restarted = try Sandbox.call(host, 8, "plugins.restart", #"{"name":"jail"}"#)
        #expect(restarted["result"] != nil, "\(restarted)")
        #expect(try Sandbox.item(host, 9, "jail")["sandbox"]?["limits"]?["processesCgroup"]?.stringValue == cgroup, "the empty cgroup is kept")
        #expect(Self.text(cgroup + "/pids.max") == "16")
        #expect(Self.text(cgroup + "/pids.current") == "1", "only the new run's plugin")
        let again = try Sandbox.jail(host, 10, "bomb", #"{"count":100,"stay":true}"#)
        #expect(again["ok"] == false && again["error"] == "EAGAIN" && again["forked"] == bomb["forked"], "\(again)")

        // A run that left processes in it (children that outlive the plugin until the restart kills its group): the
        // cgroup is removed once they are gone, and the next run has a new one.
        restarted = try Sandbox.call(host, 11, "plugins.restart", #"{"name":"jail"}"#)
        #expect(restarted["result"] != nil, "\(restarted)")
        #expect(try Self.waitUntilRemoved(cgroup), "\(cgroup) is still there")
        #expect(try Sandbox.jail(host, 12, "env")["env"]?["HOME"] != nil)
        let next = try #require(try Sandbox.item(host, 13, "jail")["sandbox"]?["limits"]?["processesCgroup"]?.stringValue)
        #expect(next != cgroup && access(next, F_OK) == 0, "\(next)")
        #expect(Self.text(next + "/pids.max") == "16")

        // At exit: every run's cgroup and the host's folder are gone.
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(access(next, F_OK) != 0 && access(folder, F_OK) != 0, "\(folder) was left")
    }

    @Test("A cgroup folder left by a killed host, with what its plugin left running, is removed by the next host")
    func staleFolderIsRemoved() throws {
        guard Self.rootWithPidsV1 else { return }  // only root may make cgroups here
        let home = try Sandbox.Home()
        let killed = try Self.host(home)
        // Children that keep the pipe's write end: they outlive the plugin, in its cgroup.
        let bomb = try Sandbox.jail(killed, 1, "bomb", #"{"count":3,"stay":true}"#)
        #expect(bomb["forked"] == 3, "\(bomb)")
        let cgroup = try #require(try Sandbox.item(killed, 2, "jail")["sandbox"]?["limits"]?["processesCgroup"]?.stringValue)
        let folder = String(cgroup[..<(cgroup.lastIndex(of: "/") ?? cgroup.endIndex)])
        killed.signal(SIGKILL)
        #expect(try killed.waitForExit() == .signaled(SIGKILL))
        #expect(access(folder, F_OK) == 0, "a killed host removes nothing")

        let next = try Self.host(home)
        _ = try Sandbox.call(next, 1, "host.status")  // finds its own folder, and removes the stale one
        #expect(try Self.waitUntilRemoved(folder), "\(folder) is still there")
        next.closeInput()
        #expect(try next.waitForExit() == .exited(0))
    }

    @Test("Where no cgroup can be made (forced off), the plugin still starts: RLIMIT_NPROC for a user, not applied for root, and host.status says why")
    func withoutCgroups() throws {
        let home = try Sandbox.Home()
        let host = try Self.host(home, environment: ["SWITCHBOARD_TEST_NO_CGROUPS": "1"])
        let processes = try #require(try Sandbox.call(host, 1, "host.status")["result"]?["sandbox"]?["processes"])
        #expect(processes["by"] != "cgroup" && processes["reason"]?.stringValue?.contains("SWITCHBOARD_TEST_NO_CGROUPS") == true, "\(processes)")
        let bomb = try Sandbox.jail(host, 2, "bomb", #"{"count":40,"stay":false}"#)
        let sandbox = try #require(try Sandbox.item(host, 3, "jail")["sandbox"])
        #expect(sandbox["limits"]?["processesCgroup"] == nil)
        if processes["by"] == "rlimit" {
            #expect(sandbox["limits"]?["processesBy"] == "rlimit" && sandbox["limits"]?["processes"] == 16)
            #expect(bomb["error"] == "EAGAIN", "\(bomb)")
        } else {
            #expect(sandbox["limits"]?["processes"] == nil, "\(sandbox)")
            #expect(sandbox["notes"]?.arrayValue?.contains { $0.stringValue?.contains("no pids cgroup") == true } == true, "\(sandbox)")
            #expect(bomb["forked"] == 40, "\(bomb)")
        }
        _ = try Sandbox.jail(host, 4, "release")
    }

    /// Waits (inotify on its parent folder, the harness's hang guard) until the folder `path` is gone; whether it is.
    static func waitUntilRemoved(_ path: String) throws -> Bool {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0 else { throw H.Failure("inotify_init1 failed") }
        defer { close(watch) }
        guard inotify_add_watch(watch, parent, UInt32(IN_DELETE)) >= 0 else { return access(path, F_OK) != 0 }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while access(path, F_OK) == 0 {
            var ready = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(H.answerTimeout)) == 1 else { return false }
            let count = read(watch, &buffer, buffer.count)
            guard count > 0 else { return false }  // any deletion in the parent: look again
        }
        return true
    }
}
