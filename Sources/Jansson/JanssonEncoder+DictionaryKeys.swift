import CJansson

/// A `Dictionary` is encoded with its members sorted by key (UTF-8 byte order, as `jq -S` sorts), the
/// way `JSONEncoder`'s `.sortedKeys` writes them: a dictionary's own order changes from one process
/// to the next (Swift seeds its hashing per process), and an answer must be the same bytes every
/// time the same data is asked for — test harnesses compare them.
///
/// A dictionary is told from a struct by the coding key type the standard library encodes its
/// members with (not public, so found once by encoding one); its object is sorted when its
/// `encode(to:)` returns.
enum DictionaryKeys {
    static let codingKeyType: ObjectIdentifier? = {
        let probe = JanssonEncoderImpl(path: [], userInfo: [:], probing: true)
        if let object = try? probe.encodeRoot(["": 0] as [String: Int]) { json_decref(object) }
        return probe.lastKeyType
    }()
}

extension JanssonEncoderImpl {
    /// Replaces the current level's object by one with the same members sorted by key.
    func sortSlotMembers() {
        guard let object = slot, sb_json_typeof(object) == JSON_OBJECT, json_object_size(object) > 1 else { return }
        var members: [(key: UnsafeRawBufferPointer, value: UnsafeMutablePointer<json_t>)] = []
        members.reserveCapacity(json_object_size(object))
        var iterator = json_object_iter(object)
        while let current = iterator {
            let key = json_object_iter_key(current)!
            members.append((UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current)), json_object_iter_value(current)!))
            iterator = json_object_iter_next(object, current)
        }
        members.sort { $0.key.lexicographicallyPrecedes($1.key) }
        let sorted = json_object()!
        for member in members {
            _ = json_object_setn_nocheck(sorted, member.key.baseAddress?.assumingMemoryBound(to: CChar.self), member.key.count, member.value)
        }
        setSlot(sorted)
    }
}
