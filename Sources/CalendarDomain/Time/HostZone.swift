import Foundation

/// The zone this machine's clock shows, as the C library finds it, named as the tz database names
/// it: `TZ` (``fromEnvironment(_:)``), else `/etc/localtime` (``fromLocalTime(_:zoneinfo:timezoneFile:)``),
/// else Foundation's `TimeZone.current`. Foundation alone read neither `TZ=:Europe/Berlin`, nor a link
/// given as a path, nor an `/etc/localtime` that is a copy of a zone's file (as a container that
/// mounts the host's has it): it took UTC, and every agenda without a `timeZone` was in UTC.
enum HostZone {
    static func find() -> ZoneRules? {
        if let value = getenv("TZ").map({ String(cString: $0) }) {
            // The C library reads a TZ it does not know as UTC; a POSIX rule (`EST5EDT,M3.2.0,M11.1.0`) has no name here.
            return fromEnvironment(value)
        }
        return fromLocalTime("/etc/localtime", zoneinfo: zoneinfo, timezoneFile: "/etc/timezone")
            ?? ZoneRules.named(TimeZone.current.identifier)
    }

    /// The folder of the tz database's files: `TZDIR`, else Debian's (and most systems') place.
    static var zoneinfo: String {
        getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The zone a `TZ` value names as the C library reads one: a name (`Europe/Berlin`), the same after
    /// a colon (`:Europe/Berlin`), or a file (`:/etc/localtime`): one of a zoneinfo folder or a link to
    /// one, named by its path there, or a copy of one, found as ``fromLocalTime(_:zoneinfo:timezoneFile:)``
    /// finds it. `nil` for anything else (a POSIX rule such as `EST5EDT,M3.2.0,M11.1.0`, a file of no
    /// zone, an empty value).
    static func fromEnvironment(_ value: String, zoneinfo: String = zoneinfo) -> ZoneRules? {
        let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
        guard name.hasPrefix("/") else { return name.isEmpty ? nil : ZoneRules.named(name) }
        // `TZ=:/etc/localtime` where that is a copy (a container's), as /etc/localtime itself is read.
        return fromLocalTime(name, zoneinfo: zoneinfo, timezoneFile: "/etc/timezone")
    }

    /// The zone of the file at `path` when it is (or links to) a file in a folder named `zoneinfo`,
    /// by its path there (`posix/` and `right/` dropped).
    static func zoneFile(_ path: String) -> ZoneRules? {
        guard path.utf8.count < 4096, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let path = String(cString: resolved)
        guard let folder = path.range(of: "/zoneinfo/", options: .backwards) else { return nil }
        var zone = path[folder.upperBound...]
        for prefix in ["posix/", "right/"] where zone.hasPrefix(prefix) { zone = zone.dropFirst(prefix.count) }
        return ZoneRules.named(String(zone))
    }

    /// The zone of `localTime` (`/etc/localtime`): the file it links to in a zoneinfo folder, else,
    /// when it is a copy of a zone's file, that zone: the one `timezoneFile` (Debian's
    /// `/etc/timezone`) names when its file in `zoneinfo` has the same bytes, else the first zone
    /// of `zoneinfo` with the same bytes (an `Area/Location` name before others), as Java and
    /// Python's `tzlocal` find it. `nil` when nothing matches.
    static func fromLocalTime(_ localTime: String, zoneinfo: String, timezoneFile: String) -> ZoneRules? {
        if let linked = zoneFile(localTime) { return linked }
        guard let bytes = contents(localTime), bytes.starts(with: Array("TZif".utf8)) else { return nil }
        if let line = contents(timezoneFile).flatMap({ String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isNewline).first }),
           case let name = line.trimmingCharacters(in: .whitespaces), !name.isEmpty, !name.contains(".."),
           contents(zoneinfo + "/" + name) == bytes, let zone = ZoneRules.named(name) {
            return zone
        }
        let files = FileManager.default
        guard let found = files.enumerator(atPath: zoneinfo) else { return nil }
        var names: [String] = []
        while let name = found.nextObject() as? String {
            if name.hasPrefix("posix") || name.hasPrefix("right") { found.skipDescendants(); continue }
            let attributes = found.fileAttributes
            guard attributes?[.type] as? FileAttributeType == .typeRegular,
                  (attributes?[.size] as? NSNumber)?.intValue == bytes.count else { continue }
            names.append(name)
        }
        names.sort { ($0.contains("/") ? 0 : 1, $0) < ($1.contains("/") ? 0 : 1, $1) }
        for name in names where contents(zoneinfo + "/" + name) == bytes {
            if let zone = ZoneRules.named(name) { return zone }
        }
        return nil
    }

    /// The bytes of a regular file (or a link to one) of less than 1 MiB (a zone's file is a few kB),
    /// `nil` when it cannot be read (a FIFO is not opened: it would wait for a writer).
    private static func contents(_ path: String) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 20), data.count < 1 << 20 else { return nil }
        return [UInt8](data)
    }
}
