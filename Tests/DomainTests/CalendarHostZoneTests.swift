@testable import CalendarDomain
import Foundation
import Testing

/// The host's zone is read from `TZ` as the C library reads it (``HostZone.fromEnvironment(_:)``):
/// Foundation took UTC for `:Europe/Berlin` and for a path into a zoneinfo folder.
@Suite("The host's zone from TZ")
struct CalendarHostZoneTests {
    @Test("a name, the same after a colon, and a file of a zoneinfo folder (through a link, posix/ and right/ too) name the zone",
          arguments: [("Europe/Berlin", "Europe/Berlin"), (":Europe/Berlin", "Europe/Berlin"), ("EST5EDT", "EST5EDT"),
                      (":@/zoneinfo/Asia/Tokyo", "Asia/Tokyo"), ("@/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
                      (":@/localtime", "Asia/Tokyo"), ("@/zoneinfo/posix/America/New_York", "America/New_York"),
                      ("@/zoneinfo/right/UTC", "UTC")])
    func named(value: String, zone: String) throws {
        let folder = try Self.zoneinfo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(HostZone.fromEnvironment(value.replacingOccurrences(of: "@", with: folder), zoneinfo: folder + "/zoneinfo")?.identifier == zone)
    }

    @Test("anything else names none: a POSIX rule, an empty value, a missing file, a file outside a zoneinfo folder, an unknown name",
          arguments: ["EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3", "", ":", "Nowhere/Land", "@/zoneinfo/Asia/Nowhere",
                      "@/zoneinfo/Mars/Olympus", "@/elsewhere/Asia/Tokyo", "@/zoneinfo/", "relative/zoneinfo/Asia/Tokyo"])
    func none(value: String) throws {
        let folder = try Self.zoneinfo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(HostZone.fromEnvironment(value.replacingOccurrences(of: "@", with: folder), zoneinfo: folder + "/zoneinfo") == nil)
    }

    /// A folder holding `zoneinfo/` with a few (empty) zone files, `localtime` linking to one of them,
    /// and `elsewhere/Asia/Tokyo` outside it.
    static func zoneinfo() throws -> String {
        let folder = NSTemporaryDirectory() + "switchboard-zoneinfo-" + UUID().uuidString
        let files = FileManager.default
        for path in ["zoneinfo/Asia/Tokyo", "zoneinfo/posix/America/New_York", "zoneinfo/right/UTC", "zoneinfo/Mars/Olympus",
                     "elsewhere/Asia/Tokyo"] {
            let file = folder + "/" + path
            try files.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(files.createFile(atPath: file, contents: Data()))
        }
        try files.createSymbolicLink(atPath: folder + "/localtime", withDestinationPath: folder + "/zoneinfo/Asia/Tokyo")
        return folder
    }
}

/// `/etc/localtime` that is a copy of a zone's file, as a container that mounts the host's sees it:
/// Foundation named it by its abbreviation (`JST`), which is no zone, and the host took UTC.
@Suite("The host's zone from a copied /etc/localtime")
struct CalendarLocalTimeCopyTests {
    /// A zoneinfo folder of fake zone files: Asia/Tokyo and Japan the same bytes (as the tz database
    /// links them), Europe/Paris as long but other bytes, posix/Asia/Tokyo the same again.
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "switchboard-localtime-" + UUID().uuidString
        let files = FileManager.default
        let tokyo = Data("TZif2-tokyo-rules".utf8)
        for (path, data) in [("zoneinfo/Asia/Tokyo", tokyo), ("zoneinfo/Japan", tokyo), ("zoneinfo/posix/Asia/Tokyo", tokyo),
                             ("zoneinfo/Europe/Paris", Data("TZif2-paris-rules".utf8)),
                             ("zoneinfo/Europe/Berlin", Data("TZif2-berlin-rules-longer".utf8)),
                             ("copy-of-tokyo", tokyo), ("copy-of-berlin", Data("TZif2-berlin-rules-longer".utf8)),
                             ("unknown", Data("TZif2-other-rules".utf8)), ("not-tzif", Data("not a zone file".utf8)),
                             ("timezone-japan", Data("Japan\n".utf8)), ("timezone-stale", Data("Europe/Berlin\n".utf8)),
                             ("timezone-climbing", Data("../copy-of-tokyo\n".utf8))] {
            let file = folder + "/" + path
            try files.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(files.createFile(atPath: file, contents: data))
        }
        try files.createSymbolicLink(atPath: folder + "/link-to-paris", withDestinationPath: folder + "/zoneinfo/Europe/Paris")
        // As Debian's tzdata has it: a name that is a link to its zone's file.
        try files.createSymbolicLink(atPath: folder + "/zoneinfo/ROK", withDestinationPath: "Asia/Tokyo")
        #expect(files.createFile(atPath: folder + "/timezone-link", contents: Data("ROK\n".utf8)))
        return folder
    }

    @Test("a link names its zone; a copy is the zone /etc/timezone names when its bytes match, else the first Area/Location zone with its bytes",
          arguments: [("link-to-paris", "none", "Europe/Paris"), ("copy-of-tokyo", "none", "Asia/Tokyo"),
                      ("copy-of-tokyo", "timezone-japan", "Japan"), ("copy-of-tokyo", "timezone-link", "ROK"), ("copy-of-tokyo", "timezone-stale", "Asia/Tokyo"),
                      ("copy-of-tokyo", "timezone-climbing", "Asia/Tokyo"), ("copy-of-berlin", "timezone-japan", "Europe/Berlin")])
    func found(localTime: String, timezoneFile: String, zone: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let found = HostZone.fromLocalTime(folder + "/" + localTime, zoneinfo: folder + "/zoneinfo", timezoneFile: folder + "/" + timezoneFile)
        #expect(found?.identifier == zone)
    }

    @Test("TZ=:/etc/localtime where that is a copy names the zone, as /etc/localtime itself")
    func environmentPathToCopy() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(HostZone.fromEnvironment(":" + folder + "/copy-of-tokyo", zoneinfo: folder + "/zoneinfo")?.identifier == "Asia/Tokyo")
        #expect(HostZone.fromEnvironment(folder + "/not-tzif", zoneinfo: folder + "/zoneinfo") == nil)
    }

    @Test("no zone for a file that is not a zone's, one no zone file matches, or none at all",
          arguments: ["not-tzif", "unknown", "missing", "zoneinfo"])
    func none(localTime: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(HostZone.fromLocalTime(folder + "/" + localTime, zoneinfo: folder + "/zoneinfo", timezoneFile: folder + "/timezone-japan") == nil)
    }

    @Test("a FIFO in /etc/localtime's place is not opened (it would wait for a writer)")
    func fifo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(HostZone.fromLocalTime(folder + "/fifo", zoneinfo: folder + "/zoneinfo", timezoneFile: folder + "/fifo") == nil)
    }
}
