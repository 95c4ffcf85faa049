import SchemaTesting
@testable import SwitchboardCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``ReadRoots``: what a request may read, resolved and opened without following links.
@Suite("Read roots")
struct ReadRootsTests {
    /// Two fresh folders, `allowed` (the root) and `outside`, each with a file `inbox.json`.
    final class Folders {
        let base: String
        let allowed: String
        let outside: String

        init() throws {
            base = try TestScratch.folder("roots")
            allowed = base + "/allowed"
            outside = base + "/outside"
            for folder in [allowed, outside, allowed + "/sub"] { mkdir(folder, 0o755) }
            write("{\"inbox\": []}", to: allowed + "/inbox.json")
            write("{\"inbox\": []}", to: allowed + "/sub/nested.json")
            write("secret", to: outside + "/secret.json")
        }

        deinit { _ = system("rm -rf '\(base)'") }

        var roots: ReadRoots { get throws { try ReadRoots(resolving: [allowed]) } }

        func write(_ text: String, to path: String) {
            let file = fopen(path, "wb")
            _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
            fclose(file)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func outcome(_ roots: ReadRoots, _ path: String) -> Result<[UInt8], FileAccessError> {
        Result { () throws(FileAccessError) in try roots.open(path).readAll(limit: 1 << 20) }
    }

    @Test("a file inside the folder opens, also through .. that stays inside and a link that stays inside")
    func inside() throws {
        let folders = try Folders()
        let roots = try folders.roots
        #expect(try roots.open(folders.allowed + "/inbox.json").readAll(limit: 100) == Array("{\"inbox\": []}".utf8))
        #expect(throws: Never.self) { try roots.open(folders.allowed + "/sub/../sub/nested.json") }
        symlink(folders.allowed + "/sub/nested.json", folders.allowed + "/link.json")
        #expect(throws: Never.self) { try roots.open(folders.allowed + "/link.json") }
    }

    @Test("everything outside is refused alike: a file, a missing file, .., a link out, a folder, /proc")
    func outside() throws {
        let folders = try Folders()
        let roots = try folders.roots
        symlink(folders.outside + "/secret.json", folders.allowed + "/out.json")
        symlink(folders.outside, folders.allowed + "/outdir")
        symlink(folders.outside + "/missing.json", folders.allowed + "/dangling.json")
        let refused = [
            folders.outside + "/secret.json",
            folders.outside + "/missing.json",
            folders.outside + "/nowhere/missing.json",
            folders.allowed + "/../outside/secret.json",
            folders.allowed + "/../outside/missing.json",
            folders.allowed + "/out.json",
            folders.allowed + "/outdir/secret.json",
            folders.allowed + "/outdir/missing.json",
            folders.allowed + "/dangling.json",
            folders.outside,
            folders.base,
            "/etc/passwd",
            "/proc/self/environ",
            "/proc/self/fd/0",
            "/sys/kernel/mm/transparent_hugepage/enabled",
        ]
        for path in refused {
            #expect(outcome(roots, path) == .failure(.refused), "\(path)")
        }
    }

    @Test("kernel files are refused even when / is allowed")
    func kernelFiles() throws {
        let everything = try ReadRoots(resolving: ["/"])
        for path in ["/proc/self/environ", "/proc/self/status", "/proc/self/cmdline", "/sys/kernel/mm/transparent_hugepage/enabled"] {
            #expect(outcome(everything, path) == .failure(.refused), "\(path)")
        }
    }

    @Test("inside the folder a reason is given: no such file, a folder, a FIFO")
    func reasonsInside() throws {
        let folders = try Folders()
        let roots = try folders.roots
        #expect(outcome(roots, folders.allowed + "/missing.json") == .failure(.unreadable("no such file")))
        #expect(outcome(roots, folders.allowed + "/sub") == .failure(.unreadable("a folder, not a file")))
        #expect(outcome(roots, folders.allowed) == .failure(.unreadable("a folder, not a file")))
        mkfifo(folders.allowed + "/fifo", 0o644)
        #expect(outcome(roots, folders.allowed + "/fifo") == .failure(.unreadable("not a regular file")))
        folders.write(String(repeating: "x", count: 2_000), to: folders.allowed + "/big.json")
        #expect(throws: FileAccessError.unreadable("too large: over 1000 bytes, the most a request reads; split it")) { try roots.open(folders.allowed + "/big.json").readAll(limit: 1_000) }
    }

    @Test("an empty path and a path with NUL are not paths")
    func invalid() throws {
        let folders = try Folders()
        let roots = try folders.roots
        #expect(outcome(roots, "") == .failure(.invalidPath("the path is empty")))
        #expect(outcome(roots, folders.allowed + "/inbox.json\u{0}.txt") == .failure(.invalidPath("the path contains a NUL character")))
    }

    @Test("relative paths are read against the current directory, which the defaults allow")
    func defaults() throws {
        let roots = ReadRoots.defaults(dataFolder: "/nonexistent-switchboard-data")
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let cwd = String(cString: getcwd(&buffer, buffer.count))
        #expect(roots.folders == [ReadRoots.realPath(cwd)])
        #expect(throws: Never.self) { try roots.open("Package.swift") }
        #expect(outcome(roots, "../../../../../../../../etc/passwd") == .failure(.refused))
        #expect(outcome(ReadRoots.empty, "Package.swift") == .failure(.refused))
        // Started in /, a host does not get the whole file system by default.
        #expect(ReadRoots.defaults(dataFolder: nil, currentDirectory: "/").folders.isEmpty)
    }

    @Test("a folder swapped for a link between resolving and opening cannot lead out", arguments: [false, true])
    func swapped(walk: Bool) throws {
        let folders = try Folders()
        let roots = try folders.roots
        let path = folders.allowed + "/sub/nested.json"
        let (folder, relative) = try roots.resolve(path)
        // The race: after the check, sub becomes a link to the outside folder, which has a nested.json too.
        folders.write("outside", to: folders.outside + "/nested.json")
        rename(folders.allowed + "/sub", folders.base + "/old-sub")
        symlink(folders.outside, folders.allowed + "/sub")
        #expect(throws: FileAccessError.refused) { try roots.openBeneath(folder, relative, walk: walk) }
        // The last component swapped for a link is refused too.
        rename(folders.allowed + "/inbox.json", folders.base + "/old-inbox.json")
        symlink(folders.outside + "/secret.json", folders.allowed + "/inbox.json")
        let (rootFolder, name) = (folder, "inbox.json")
        #expect(throws: FileAccessError.refused) { try roots.openBeneath(rootFolder, name, walk: walk) }
    }

    @Test("--allow-read names existing folders only")
    func rootErrors() throws {
        #expect(throws: ReadRoots.RootError.self) { try ReadRoots(resolving: ["/nonexistent-switchboard-folder"]) }
        #expect(throws: ReadRoots.RootError.self) { try ReadRoots(resolving: ["/etc/passwd"]) }
        #expect(throws: ReadRoots.RootError.self) { try ReadRoots(resolving: [""]) }
        #expect(try ReadRoots(resolving: ["/tmp", "/tmp/"]).folders == [ReadRoots.realPath("/tmp")!])
    }
}
