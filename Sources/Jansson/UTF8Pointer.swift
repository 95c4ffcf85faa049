/// Calls `body` with a pointer to the UTF-8 bytes of `string` and their count; the pointer is never nil,
/// even for the empty string, as jansson requires.

func withUTF8Pointer<R>(_ string: String, _ body: (UnsafePointer<CChar>, Int) throws -> R) rethrows -> R {
    var string = string
    return try string.withUTF8 { utf8 in
        if let base = utf8.baseAddress {
            return try UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                try body($0, utf8.count)
            }
        }
        var empty: CChar = 0
        return try body(&empty, 0)
    }
}
