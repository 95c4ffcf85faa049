/// Where the wake-ups for other processes' writes come from: inotify on SQLite's files today
/// (`DatabaseWatcher`); a server store's own notifications (PostgreSQL `LISTEN/NOTIFY`) would
/// conform as well, and subscriptions would not notice the difference.
public protocol ChangeSource: Sendable {
    /// Posts the source's ``ChangeSignal`` whenever the store may have changed, until ``stop()``.
    /// Blocks: run it on a thread of its own.
    func run()
    /// Ends ``run()``.
    func stop()
}
