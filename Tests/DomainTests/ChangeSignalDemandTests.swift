import SwitchboardCore
import Synchronization
import Testing

/// The sources of other processes' changes start at the first demand, once, before the demand returns;
/// a start that fails is reported and tried again.
@Suite("Change signal: sources started on demand")
struct ChangeSignalDemandTests {
    struct StartFailed: Error {}

    @Test("a source registered before any demand starts at the first demand, once; one registered after starts at once")
    func startsOnFirstDemand() throws {
        let signal = ChangeSignal()
        let started = Mutex<[String]>([])
        try signal.whenDemanded { started.withLock { $0.append("watcher") } }
        #expect(started.withLock { $0 }.isEmpty)
        try signal.demand()
        #expect(started.withLock { $0 } == ["watcher"])
        try signal.demand()
        #expect(started.withLock { $0 } == ["watcher"])
        try signal.whenDemanded { started.withLock { $0.append("late") } }
        #expect(started.withLock { $0 } == ["watcher", "late"])
    }

    @Test("a start that fails throws from the demand and is tried again at the next one")
    func failedStartIsRetried() throws {
        let signal = ChangeSignal()
        let attempts = Mutex(0)
        try signal.whenDemanded {
            let attempt = attempts.withLock { attempts in
                attempts += 1
                return attempts
            }
            if attempt == 1 { throw StartFailed() }
        }
        #expect(throws: StartFailed.self) { try signal.demand() }
        try signal.demand()
        try signal.demand()
        #expect(attempts.withLock { $0 } == 2)
    }
}
