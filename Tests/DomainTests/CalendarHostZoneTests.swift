@testable import CalendarDomain
import Foundation
import Testing

/// The host's zone is read from `TZ` as the C library reads it (``ZoneRules/fromEnvironment(_:)``):
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
        #expect(ZoneRules.fromEnvironment(value.replacingOccurrences(of: "@", with: folder))?.identifier == zone)
    }

    @Test("anything else names none: a POSIX rule, an empty value, a missing file, a file outside a zoneinfo folder, an unknown name",
          arguments: ["EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3", "", ":", "Nowhere/Land", "@/zoneinfo/Asia/Nowhere",
                      "@/zoneinfo/Mars/Olympus", "@/elsewhere/Asia/Tokyo", "@/zoneinfo/", "relative/zoneinfo/Asia/Tokyo"])
    func none(value: String) throws {
        let folder = try Self.zoneinfo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(ZoneRules.fromEnvironment(value.replacingOccurrences(of: "@", with: folder)) == nil)
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
