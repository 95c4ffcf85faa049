/// Where an agenda stopped expanding repeating events (``AgendaBuilder/maximumOccurrences``): every
/// day before `at` is complete; days from `at` on lack some occurrences.
public struct AgendaTruncation: Sendable, Equatable, Encodable {
    /// The first day that may lack occurrences.
    public var at: CalendarDate
    public var reason: String
}
