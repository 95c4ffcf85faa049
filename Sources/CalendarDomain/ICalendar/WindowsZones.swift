import _FoundationICU

/// Windows time zone names, as Outlook and Exchange write them in TZID (`W. Europe Standard Time`),
/// turned into IANA names by CLDR's table in the ICU that Foundation carries
/// (`ucal_getTimeZoneIDForWindowsID`, the world region; `_FoundationICU` prefixes its names with `swift_`).
enum WindowsZones {
    /// The IANA name for the Windows zone `name`, or `nil` when it is none.
    static func ianaName(_ name: String) -> String? {
        let windows = Array(name.utf16)
        guard !windows.isEmpty, windows.count <= 64 else { return nil }
        var iana = [UChar](repeating: 0, count: 64)
        var status = U_ZERO_ERROR
        let length = swift_ucal_getTimeZoneIDForWindowsID(windows, Int32(windows.count), nil, &iana, Int32(iana.count), &status)
        let written = Int(length)
        guard status.rawValue <= U_ZERO_ERROR.rawValue, written > 0, written <= iana.count else { return nil }
        return String(decoding: iana[..<written], as: UTF16.self)
    }
}
