import Synchronization

/// What one validation (one ``SchemaValidator/problems(of:against:at:)`` call) may spend: schema
/// applications (a schema whose `$ref`s and `anyOf`s branch at every level would otherwise take
/// exponential time), and engine steps for its pattern searches together, in ICU's time-limit ticks (ten
/// thousand steps each, some thousands a second on a 2020s core: a few seconds at most), so a value
/// with many strings cannot multiply the bound of one search.
final class ValidationBudget: Sendable {
    static let ticksPerValidation: Int32 = 5_000
    /// For schemas written elsewhere (plugins'); the host's own schemas are not bounded.
    static let stepsPerValidation = 100_000

    private let ticks = Atomic<Int32>(ValidationBudget.ticksPerValidation)
    private let steps: Atomic<Int>

    /// At most `steps` schema applications (``stepsPerValidation`` for schemas written elsewhere).
    init(steps: Int = ValidationBudget.stepsPerValidation) { self.steps = Atomic(steps) }

    var ticksLeft: Int32 { ticks.load(ordering: .relaxed) }

    func spend(_ used: Int32) { _ = ticks.subtract(max(0, min(used, ticksLeft)), ordering: .relaxed) }

    /// Takes one schema application; false once they ran out.
    func takeStep() -> Bool { steps.subtract(1, ordering: .relaxed).newValue >= 0 }

    /// True once ``takeStep()`` refused: the problems found are incomplete.
    var ranOutOfSteps: Bool { steps.load(ordering: .relaxed) < 0 }

    /// What is reported when the steps ran out, in place of whatever was found.
    static let outOfSteps = "$: the check took too many steps (over \(stepsPerValidation) schema applications)"
}
