import Jansson

extension SpawnedHost {
    /// Reads until each of `ids` is answered, in whatever order the host answers (it runs requests
    /// concurrently), and returns the answers by id; notifications read meanwhile are skipped.
    func answers(to ids: some Sequence<Int>, within milliseconds: Int = BinaryHarness.answerTimeout) throws -> [Int: JSONValue] {
        var waiting = Set(ids)
        var answers: [Int: JSONValue] = [:]
        while !waiting.isEmpty {
            let message = try nextMessage(within: milliseconds)
            guard message["method"] == nil, let id = message["id"]?.int64Value.map({ Int($0) }) else { continue }
            answers[id] = message
            waiting.remove(id)
        }
        return answers
    }
}
