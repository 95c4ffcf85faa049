import Jansson

/// The params of every `*.changes` method: `{"sinceState": string, "maxChanges": 1...500?}`.
public struct ChangesRequest: Decodable, Sendable, Equatable {
    public var sinceState: String
    public var maxChanges: Int

    enum CodingKeys: String, CodingKey { case sinceState, maxChanges }

    public init(sinceState: String, maxChanges: Int = ChangeTracking.maxChanges) {
        self.sinceState = sinceState
        self.maxChanges = maxChanges
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sinceState = try container.decode(String.self, forKey: .sinceState)
        maxChanges = try container.decodeIfPresent(Int.self, forKey: .maxChanges) ?? ChangeTracking.maxChanges
        guard (1...ChangeTracking.maxChanges).contains(maxChanges) else {
            throw JSONFieldError(field: "maxChanges", expected: "integer 1...\(ChangeTracking.maxChanges)", got: String(maxChanges))
        }
    }
}
