import SwitchboardCore

/// The command lines read without ArgumentParser (``Call/quick(_:)``, ``Serve/quick(_:)``): words, and
/// the store options as `--name value`. The parser's reflection over the command types (a
/// protocol-conformance scan of the whole static binary) costs more CPU than a host's whole start,
/// and `switchboard --db FILE` is how editors and scripts start it.
///
/// Anything else — another option, `--name=value`, a value that starts with `-`, a number that is not
/// one, a configuration ``StoreConfiguration/validate()`` refuses — reads as `nil`, and the parser then
/// takes the command line and answers it as it always did, errors and help included.
struct QuickArguments {
    var store = StoreConfiguration()
    /// The arguments that are not options, in order.
    var words: [String] = []

    init?(_ arguments: ArraySlice<String>) {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            guard argument.hasPrefix("-") else {
                words.append(argument)
                index += 1
                continue
            }
            let next = arguments.index(after: index)
            guard next < arguments.endIndex, !arguments[next].hasPrefix("-"), set(argument, to: arguments[next]) else { return nil }
            index = arguments.index(after: next)
        }
        guard (try? store.validate()) != nil else { return nil }
    }

    /// Sets the store option `name` (as the parser names it); false for any other name or a value it refuses.
    private mutating func set(_ name: String, to value: String) -> Bool {
        // A switch, not a Set: a Set's first use costs a conformance look-up over the whole binary.
        switch name {
        case "--db": store.db = value
        case "--now": store.now = value
        case "--time-zone": store.timeZone = value
        case "--account": store.account = value
        case "--chat-user": store.chatUser = value
        case "--feed-items": return Self.count(value).map { store.feedItems = $0 } != nil
        case "--mail-messages": return Self.count(value).map { store.mailMessages = $0 } != nil
        case "--calendar-events": return Self.count(value).map { store.calendarEvents = $0 } != nil
        case "--backend":
            guard let backend = StoreConfiguration.Backend(rawValue: value) else { return false }
            store.backend = backend
        default: return false
        }
        return true
    }

    /// A count as the parser reads an `Int` option (`validate()` then checks its range).
    private static func count(_ value: String) -> Int? { Int(value) }
}
