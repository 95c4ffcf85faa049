#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A confined run's private temporary folder is named after its host (`switchboard-plugin-NS-PID-START-XXXXXX`), so a
/// host that was SIGKILLed leaves folders the next host can attribute: its first confined start removes those of
/// hosts that are gone, never a living host's, never a folder it does not own, following no link.
@Suite("Plugin private temporary folders (binary)", .serialized, .offCooperativePool)
struct PluginTemporaryFolderBinaryTests {
    typealias H = BinaryHarness
    typealias Sandbox = PluginSandboxBinaryTests

    static func host(_ home: Sandbox.Home, temporary: String) throws -> SpawnedHost {
        try Sandbox.host(home, environment: ["TMPDIR": temporary])
    }

    /// The jail's private temporary folder (its HOME) in `host`.
    static func privateFolder(_ host: SpawnedHost, _ id: Int) throws -> String {
        try #require(try Sandbox.jail(host, id, "env")["env"]?["HOME"]?.stringValue)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test("A killed host's folder is removed by the next host (a link in it removed as a link), a living host's folder and what is not attributable stay")
    func staleFoldersOfKilledHostsGo() throws {
        let home = try Sandbox.Home()
        let temporary = try H.temporaryFolder("plugin-tmp")
        let living = try Self.host(home, temporary: temporary)
        let livingFolder = try Self.privateFolder(living, 1)
        let killed = try Self.host(home, temporary: temporary)
        let killedFolder = try Self.privateFolder(killed, 1)
        let name = String(killedFolder.split(separator: "/").last ?? "")
        #expect(killedFolder.hasPrefix(temporary + "/switchboard-plugin-") && name.split(separator: "-").count == 6,
                "named after its host: \(killedFolder)")

        // What the plugin (here: the test, as the same user) left: a file, a folder, and links to things outside.
        let target = home.path + "/target"
        mkdir(target, 0o700)
        try PluginShippedTests.write("keep me\n", to: target + "/file.txt", mode: 0o600)
        mkdir(killedFolder + "/cache", 0o700)
        try PluginShippedTests.write("scratch\n", to: killedFolder + "/cache/scratch.txt", mode: 0o600)
        #expect(symlink(target, killedFolder + "/link-to-folder") == 0)
        #expect(symlink(target + "/file.txt", killedFolder + "/cache/link-to-file") == 0)

        // Not attributable, or not ours to remove: an old-style folder, another pid namespace's, a stale-looking
        // link to a folder, and (as root) a stale-looking folder of another user.
        let parts = name.split(separator: "-").map(String.init)  // switchboard plugin NS PID START XXXXXX
        let oldStyle = temporary + "/switchboard-plugin-Ab12Cd"
        let otherNamespace = temporary + "/switchboard-plugin-1-\(parts[3])-\(parts[4])-Ab12Cd"
        let staleLink = temporary + "/switchboard-plugin-\(parts[2])-\(parts[3])-\(parts[4])-linkXX"
        let foreign = temporary + "/switchboard-plugin-\(parts[2])-\(parts[3])-\(parts[4])-nobody"
        for folder in [oldStyle, otherNamespace] {
            mkdir(folder, 0o700)
            try PluginShippedTests.write("x", to: folder + "/file", mode: 0o600)
        }
        #expect(symlink(target, staleLink) == 0)
        if getuid() == 0 {
            mkdir(foreign, 0o700)
            #expect(chown(foreign, 65_534, 65_534) == 0)
        }

        killed.signal(SIGKILL)
        #expect(try killed.waitForExit() == .signaled(SIGKILL))
        #expect(Self.exists(killedFolder), "a killed host removes nothing")

        // The next host's first confined start removes the stale folder before its plugin runs.
        let next = try Self.host(home, temporary: temporary)
        let nextFolder = try Self.privateFolder(next, 1)
        #expect(!Self.exists(killedFolder), "\(killedFolder) is still there")
        #expect(try RegularFileText.read(target + "/file.txt") == "keep me\n", "a link's target survives")
        #expect(Self.exists(livingFolder) && Self.exists(nextFolder), "a living host's folder stays")
        #expect(try Sandbox.jail(living, 2, "write", #"{"path":\#(Sandbox.json(livingFolder + "/still.txt")),"text":"t"}"#)["ok"] == true)
        for path in [oldStyle, otherNamespace, staleLink] + (getuid() == 0 ? [foreign] : []) {
            #expect(Self.exists(path), "\(path) was removed")
        }
        #expect(Self.exists(oldStyle + "/file") && Self.exists(otherNamespace + "/file"))

        // At exit a host removes its own folders.
        for host in [living, next] {
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
        #expect(!Self.exists(livingFolder) && !Self.exists(nextFolder))
    }

    @Test("A plugin keeps its folder across restarts, emptied at each run's end (links removed as links); the host's exit removes it")
    func folderIsKeptAndEmptied() throws {
        let home = try Sandbox.Home()
        let temporary = try H.temporaryFolder("plugin-tmp")
        let host = try Self.host(home, temporary: temporary)
        let folder = try Self.privateFolder(host, 1)
        #expect(try Sandbox.jail(host, 2, "write", #"{"path":\#(Sandbox.json(folder + "/left.txt")),"text":"t"}"#)["ok"] == true)
        let target = home.path + "/target.txt"
        try PluginShippedTests.write("keep me\n", to: target, mode: 0o600)
        mkdir(folder + "/cache", 0o700)
        #expect(symlink(target, folder + "/cache/link") == 0)

        for round in 0..<2 {
            let restarted = try Sandbox.call(host, 10 + round * 10, "plugins.restart", #"{"name":"jail"}"#)
            #expect(restarted["result"] != nil, "\(restarted)")
            #expect(try Self.privateFolder(host, 11 + round * 10) == folder, "the same folder")
            let listed = try Sandbox.jail(host, 12 + round * 10, "read", #"{"path":\#(Sandbox.json(folder + "/left.txt"))}"#)
            #expect(listed["ok"] == false && listed["error"] == "ENOENT", "emptied: \(listed)")
            #expect(!Self.exists(folder + "/cache"))
            #expect(try RegularFileText.read(target) == "keep me\n", "a link's target survives")
            #expect(try Sandbox.jail(host, 13 + round * 10, "write", #"{"path":\#(Sandbox.json(folder + "/left.txt")),"text":"u"}"#)["ok"] == true)
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(!Self.exists(folder))
    }
}
