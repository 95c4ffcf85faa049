import GRDB
import SwitchboardCore

extension AppDatabase {
    /// Posts `signal` after every transaction of this process that wrote the change log, whichever
    /// domain wrote it: GRDB observes the commits, so no write path can forget to signal. Writes of
    /// other processes reach the signal through ``DatabaseWatcher``. Keep the returned value for as long
    /// as signals should be posted.
    public func signalChanges(to signal: ChangeSignal) -> AnyDatabaseCancellable {
        DatabaseRegionObservation(tracking: Table("change_log"))
            .start(in: writer, onError: { _ in }, onChange: { _ in signal.post() })
    }
}
