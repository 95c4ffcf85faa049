import CJansson
import Jansson
import Synchronization

/// Gathers the responses of one batch, in the batch's order, so they go out together as one array.
final class BatchCollector: Sendable {
    /// Response objects handed over by whoever produced them; owned by the collector from then on.
    private struct Slots: @unchecked Sendable {
        var responses: [UnsafeMutablePointer<json_t>?]
        var remaining: Int
    }

    private let slots: Mutex<Slots>
    /// What the batch's task-run requests want done once the array is queued (``RequestContext/afterAnswer(_:)``).
    private let held = Mutex<[AfterAnswer]>([])

    init(size: Int) {
        slots = Mutex(Slots(responses: Array(repeating: nil, count: size), remaining: size))
    }

    /// Stores the response for slot `index`; returns the finished array when it was the last one,
    /// after running the held actions' ``AfterAnswer/answerGoesOut()``.
    func add(_ response: JanssonValue, at index: Int) -> JanssonValue? {
        let complete: [UnsafeMutablePointer<json_t>?]? = slots.withLock { slots in
            slots.responses[index] = response.retained()
            slots.remaining -= 1
            return slots.remaining == 0 ? slots.responses : nil
        }
        guard let complete else { return nil }
        // Complete: whoever sends it, the peer reads it only after this.
        for actions in held.withLock({ $0 }) { actions.answerGoesOut() }
        let array = JanssonValue.array()
        for response in complete.compactMap({ $0 }) { array.append(taking: response) }
        return array
    }

    /// Keeps a request's after-answer actions until the batch's array is queued.
    func hold(_ actions: AfterAnswer?) {
        guard let actions else { return }
        held.withLock { $0.append(actions) }
    }

    var hasHeldActions: Bool { held.withLock { !$0.isEmpty } }

    /// Runs the held actions in a task, once the completed array was queued by the input thread (an
    /// immediate member, a refusal or a cancel answered the last member).
    func runHeldActionsLater() {
        guard hasHeldActions else { return }
        Task { await runHeldActions() }
    }

    /// Runs the held actions; called right after the completed array was queued.
    func runHeldActions() async {
        let actions = held.withLock { held in
            defer { held = [] }
            return held
        }
        // All promised before the first runs: the count must not reach 0 between two members.
        actions.forEach { $0.promise() }
        for action in actions { await action.run() }
    }
}

/// Where the answer to a request goes.
enum ReplyTarget: Sendable {
    /// A frame of its own.
    case single
    /// Slot `index` of a batch's array.
    case batch(BatchCollector, index: Int)
    /// Nowhere: the request was a notification.
    case none
}
