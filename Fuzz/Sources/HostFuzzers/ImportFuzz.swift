import FuzzSupport
import Jansson

/// `mail.import` records and `catalog.import` documents, as clients send them inline (the same
/// readers read a file given by `path`). Byte 0 picks which; the rest is the JSON text.
///
/// Properties: it never traps or hangs; every import is answered once, with a result (listing the
/// records it refused) or a client error, never an internal error.
enum ImportFuzz: FuzzTarget {
    static let name = "import"
    static let summary = "mail.import records and catalog.import documents (inline JSON)"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let body = Array(input.dropFirst())
        if first % 2 == 0 {
            HostWorld.call("mail.import", params: Array(#"{"records":"#.utf8) + body + Array("}".utf8))
        } else {
            HostWorld.call("catalog.import", params: Array(#"{"document":"#.utf8) + body + Array("}".utf8))
        }
    }
}
