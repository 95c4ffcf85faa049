#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A plugin's restarts reuse its Landlock ruleset while its paths still name what the rules hold: a rule holds an
/// inode, not a path, so a declared folder replaced by a new one of the same name must get a new rule.
@Suite("Plugin sandbox across restarts (binary)", .serialized, .offCooperativePool)
struct PluginSandboxRestartBinaryTests {
    typealias Sandbox = PluginSandboxBinaryTests

    @Test("A declared read folder replaced between two runs (renamed away, a new one made): the next run reads the new folder's file and not the old folder's")
    func replacedReadFolderIsAllowedAfterRestart() throws {
        let home = try Sandbox.Home()
        let host = try Sandbox.host(home)
        let before = try Sandbox.jail(host, 1, "read", #"{"path":\#(Sandbox.json(home.allowed))}"#)
        #expect(before["ok"] == true && before["text"] == "allowed note\n", "\(before)")

        // The same restart with nothing changed still reads it.
        #expect(try Sandbox.call(host, 2, "plugins.restart", #"{"name":"jail"}"#)["result"] != nil)
        #expect(try Sandbox.jail(host, 3, "read", #"{"path":\#(Sandbox.json(home.allowed))}"#)["text"] == "allowed note\n")

        let folder = home.path + "/allowed", old = home.path + "/allowed-old"
        #expect(rename(folder, old) == 0)
        #expect(mkdir(folder, 0o700) == 0)
        try PluginShippedTests.write("new note\n", to: home.allowed, mode: 0o600)
        #expect(try Sandbox.call(host, 4, "plugins.restart", #"{"name":"jail"}"#)["result"] != nil)
        let after = try Sandbox.jail(host, 5, "read", #"{"path":\#(Sandbox.json(home.allowed))}"#)
        #expect(after["ok"] == true && after["text"] == "new note\n", "\(after)")
        let renamed = try Sandbox.jail(host, 6, "read", #"{"path":\#(Sandbox.json(old + "/note.txt"))}"#)
        #expect(renamed["ok"] == false && renamed["error"] == "EACCES", "\(renamed)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
