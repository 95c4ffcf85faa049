import Jansson

extension MessageReader {
    /// Starts a deferred method once the admission gate gives it a slot: its work runs on the thread
    /// that has the slot (this one, mostly) and the answer is written by whoever completes it. The slot
    /// is held until the answer is queued, as for a task.
    func startDeferred(_ work: @escaping MethodEntry.DeferredWork, context: RequestContext, target: ReplyTarget) {
        let connection = self.connection
        admit(context: context, target: target) { request in
            let answer = DeferredAnswer { outcome in
                if let request {
                    request.detach()
                    connection.inFlight.remove(request)
                    // Answered already by a drain that gave up on it.
                    guard request.claimAnswer() else { return connection.gate.release() }
                }
                connection.sendAnswer(outcome, for: context, target: target) { connection.gate.release() }
            }
            request?.attach { answer.cancel() }
            work(context, answer)
        }
    }
}

extension Connection {
    /// Answers a deferred request from the thread its outcome arrived on: gathered with the thread's
    /// other frames of this input chunk (``WriteCoalescing``), written when the output has room, else
    /// queued by a task that waits for room; `queued` runs once it is out of the way.
    func sendAnswer(_ outcome: Result<JanssonValue, ResponseError>, for context: RequestContext, target: ReplyTarget,
                    queued: @escaping @Sendable () -> Void) {
        let bytes: [UInt8]
        if case .single = target, case .success(let result) = outcome, let id = context.id, framing != nil {
            // The usual case, written from its parts like the input thread's own answers.
            bytes = responseFrame(id: context.exactID?.view, requestID: id, result: result)
        } else {
            guard let message = answer(outcome, for: context, target: target) else { return queued() }
            if holdUntilFramed(message) { return queued() }
            bytes = framed(message)
        }
        if case .batch(let collector, _) = target, collector.hasHeldActions {
            Task {
                await sink.enqueue(bytes)
                await collector.runHeldActions()
                queued()
            }
        } else {
            WriteCoalescing.send(bytes, to: sink, queued: queued)
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"result":…}` framed, the id written as the request had it.
    private func responseFrame(id exact: JSONView?, requestID: RequestID, result: JanssonValue) -> [UInt8] {
        let rebuilt = exact == nil ? JanssonValue(taking: requestID.makeJanssonPointer()) : nil
        var output: [UInt8] = []
        withExtendedLifetime(rebuilt) {
            guard let id = exact ?? rebuilt?.view else { return }
            writers.withWriter { writer in
                var body: [UInt8] = []
                ResponseText.append(id: id, result: result.view, writer: writer, to: &body)
                body.withUnsafeBytes { (framing ?? .ndjson).appendFrame(body: $0, to: &output) }
            }
        }
        return output
    }
}
