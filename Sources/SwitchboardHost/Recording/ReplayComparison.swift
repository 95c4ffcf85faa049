import Jansson

/// Compares recorded output frames with replayed ones: answers by id (a batch's array counts as its
/// members), notifications by method as collections; volatile paths are masked on both sides first.
enum ReplayComparison {
    static func compare(recorded: [JSONValue], replayed: [JSONValue], inputs: [JSONValue],
                        volatile: [VolatilePath]) -> ReplayReport {
        let mask = { (value: JSONValue) in volatile.reduce(value) { $1.masking($0) } }
        let methods = methodsByID(inputs)
        let (recordedAnswers, recordedNotes) = split(recorded)
        let (replayedAnswers, replayedNotes) = split(replayed)
        var differences: [String] = []

        let replayedByID = Dictionary(replayedAnswers.map { ($0["id"]?.jsonText() ?? "null", $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for answer in recordedAnswers {
            let id = answer["id"]?.jsonText() ?? "null"
            let name = "the answer to id \(id)" + (methods[id].map { " (\($0))" } ?? "")
            guard seen.insert(id).inserted else { continue }
            guard let other = replayedByID[id] else {
                differences.append("\(name): recorded, but none was replayed")
                continue
            }
            if let difference = firstDifference(mask(answer), mask(other), at: "") {
                differences.append("\(name) differs at \(difference)")
            }
        }
        for answer in replayedAnswers where !seen.contains(answer["id"]?.jsonText() ?? "null") {
            differences.append("an answer to id \(answer["id"]?.jsonText() ?? "null") was replayed, but none was recorded")
        }

        let recordedByMethod = Dictionary(grouping: recordedNotes.map(mask)) { $0["method"]?.stringValue ?? "" }
        let replayedByMethod = Dictionary(grouping: replayedNotes.map(mask)) { $0["method"]?.stringValue ?? "" }
        for method in Set(recordedByMethod.keys).union(replayedByMethod.keys).sorted() {
            let before = (recordedByMethod[method] ?? []).map { $0.jsonText() }.sorted()
            let after = (replayedByMethod[method] ?? []).map { $0.jsonText() }.sorted()
            guard before != after else { continue }
            if before.count != after.count {
                differences.append("notifications \(method): \(before.count) recorded, \(after.count) replayed")
            } else if let (old, new) = zip(before, after).first(where: { $0 != $1 }) {
                differences.append("a notification \(method) differs: recorded \(excerpt(old)), replayed \(excerpt(new))")
            }
        }
        return ReplayReport(answersCompared: recordedAnswers.count, notificationsCompared: recordedNotes.count,
                            differences: differences)
    }

    /// The first place two values differ, as `path: recorded X, replayed Y`; nil when they are equal.
    static func firstDifference(_ recorded: JSONValue, _ replayed: JSONValue, at path: String) -> String? {
        switch (recorded, replayed) {
        case (.object(let old), .object(let new)):
            for key in old.keys + new.keys.filter({ old[$0] == nil }) {
                let member = path.isEmpty ? key : path + "." + key
                guard let left = old[key], let right = new[key] else {
                    return "\(member): \(old[key] == nil ? "only replayed" : "only recorded")"
                }
                if let found = firstDifference(left, right, at: member) { return found }
            }
            return nil
        case (.array(let old), .array(let new)):
            for (position, (left, right)) in zip(old, new).enumerated() {
                if let found = firstDifference(left, right, at: "\(path)[\(position)]") { return found }
            }
            return old.count == new.count ? nil : "\(path): \(old.count) elements recorded, \(new.count) replayed"
        default:
            return recorded == replayed ? nil
                : "\(path.isEmpty ? "(whole)" : path): recorded \(excerpt(recorded.jsonText())), replayed \(excerpt(replayed.jsonText()))"
        }
    }

    private static func split(_ frames: [JSONValue]) -> (answers: [JSONValue], notifications: [JSONValue]) {
        let messages = frames.flatMap { $0.arrayValue ?? [$0] }
        return (messages.filter { $0["method"] == nil }, messages.filter { $0["method"] != nil && $0["id"] == nil })
    }

    private static func methodsByID(_ inputs: [JSONValue]) -> [String: String] {
        var methods: [String: String] = [:]
        for message in inputs.flatMap({ $0.arrayValue ?? [$0] }) {
            if let id = message["id"], let method = message["method"]?.stringValue { methods[id.jsonText()] = method }
        }
        return methods
    }

    private static func excerpt(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}
