#if canImport(Glibc)
import Glibc
#endif
import SystemCalls
import Testing

/// ``DirectoryEntry/name(of:)`` reads a `readdir` record up to its name's NUL and no further.
@Suite("Directory entries")
struct DirectoryEntryTests {
    @Test("a record that ends a page is read without touching the next one (copying the whole d_name crashed here)")
    func recordAtPageEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(mapped == MAP_FAILED ? nil : mapped)
        defer { munmap(base, 2 * page) }
        // The page after the record cannot be read: a read past the record's end faults.
        #expect(mprotect(base + page, page, PROT_NONE) == 0)
        let offset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
        let name: [UInt8] = Array("a".utf8) + [0]
        let length = (offset + name.count + 7) / 8 * 8
        let record = base + page - length
        memset(record, 0, length)
        record.storeBytes(of: UInt16(length), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen) ?? 16, as: UInt16.self)
        for (index, byte) in name.enumerated() { record.storeBytes(of: byte, toByteOffset: offset + index, as: UInt8.self) }
        #expect(DirectoryEntry.name(of: record.assumingMemoryBound(to: dirent.self)) == "a")
    }

    @Test("every name of a folder comes back whole, short and long, as readdir lists them")
    func namesOfAFolder() throws {
        var template = Array("/tmp/sb-dirent-XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap(mkdtemp) }.map { String(cString: $0) })
        defer { _ = system("rm -rf '\(folder)'") }
        let names = Set(["a", "b.json", String(repeating: "n", count: 255), "ünïcødé 📅"] + (0..<200).map { "file-\($0)-" + String(repeating: "x", count: $0) })
        for name in names { close(open(folder + "/" + name, O_CREAT | O_WRONLY, 0o600)) }
        let listing = try #require(opendir(folder))
        defer { closedir(listing) }
        var read: Set<String> = []
        while let entry = readdir(listing) { read.insert(DirectoryEntry.name(of: entry)) }
        #expect(read == names.union([".", ".."]))
    }
}
