import CJansson
import Jansson
import Logging

extension MessageReader {
    /// Runs one request or notification: cheap methods here and now, the others as tasks.
    func dispatch(id: RequestID?, idView: JSONView?, method: String, params: JSONView?, target: ReplyTarget) {
        if BuiltinNotifications.isCancellation(method) {
            // The method's own member first (LSP's id, MCP's requestId), the other's when it is absent.
            let (member, other) = method == "$/cancelRequest" ? ("id", "requestId") : ("requestId", "id")
            let named = cancel(params?[member] ?? params?[other])
            // Sent as a request, it is answered: null, or what is wrong with its params.
            if let idView {
                if named {
                    reply(OutgoingMessage.response(id: idView, result: .null), target: target)
                } else {
                    replyError(.invalidParams(JSONFieldError(field: member, expected: "the id of a request (a string or an integer)",
                                                             got: (params?[member]).map { $0.preview() } ?? "nothing")),
                               id: idView, target: target)
                }
            }
            return
        }
        guard connection.isAccepting else {
            if idView != nil { replyError(.invalidRequest("the server is stopping and takes no more requests"), id: idView, target: target) }
            return
        }
        if connection.isShuttingDown, method != BuiltinNotifications.exit {
            // LSP: after shutdown only exit is acted on; a notification (a write sent as one) is dropped, not run.
            if id != nil {
                replyError(.invalidRequest("the server is shutting down and takes no more requests"), id: idView, target: target)
            } else {
                connection.logger.warning("ignored notification \(LogText.escaped(method)) after shutdown: only exit is taken now")
            }
            return
        }
        guard let entry = connection.dispatcher.entry(named: method) else {
            if let idView {
                replyError(.methodNotFound(method), id: idView, target: target)
            } else {
                connection.logger.debug("ignored notification \(method): no such method")
            }
            return
        }
        let context = RequestContext(id: id, method: method, progressToken: Self.progressToken(in: params), connection: connection,
                                     idView: idView, runsAsTask: entry.runsAsTask)
        switch entry.body {
        case .immediate(let run):
            do {
                let result = try run(params, context)
                if let idView { replyResult(result, id: idView, target: target) }
            } catch {
                answerFailure(error, id: idView, method: method, target: target)
            }
        case .task(let prepare):
            do {
                startTask(try prepare(params), context: context, target: idView == nil ? .none : target)
            } catch {
                answerFailure(error, id: idView, method: method, target: target)
            }
        case .deferred(let prepare):
            do {
                startDeferred(try prepare(params), context: context, target: idView == nil ? .none : target)
            } catch {
                answerFailure(error, id: idView, method: method, target: target)
            }
        }
    }

    private func answerFailure(_ error: any Error, id: JSONView?, method: String, target: ReplyTarget) {
        let responseError = ResponseError(error)
        if let id {
            replyError(responseError, id: id, target: target)
        } else {
            connection.logger.warning("notification \(LogText.escaped(method)) failed: \(LogText.escaped(responseError.message))")
        }
    }

    /// Starts `work` in a task of its own once the admission gate gives it a slot.
    private func startTask(_ work: @escaping MethodEntry.PendingWork, context: RequestContext, target: ReplyTarget) {
        let connection = self.connection
        admit(context: context, target: target) { request in
            let slot = context.slot
            let task = Task.detached {
                let outcome: Result<JanssonValue, ResponseError>
                do {
                    // A result the handler produced is delivered even if a cancel came meanwhile:
                    // its work (a write, say) is done, and the client must learn of it.
                    outcome = .success(try await work(context))
                } catch {
                    // A cancelled request's failure is the cancel's, unless it says what was written.
                    let failure = ResponseError(error)
                    outcome = .failure(Task.isCancelled && !failure.reportsWrites ? .cancelled : failure)
                }
                if let request { connection.inFlight.remove(request) }
                // Answered already by a drain that gave up on it (it ignored its cancel): nothing to send.
                if let request, !request.claimAnswer() {
                    if let slot { slot.release() } else { connection.gate.release() }
                    return
                }
                // The slot stays taken while the answer waits for room in the output: so the gate
                // fills and the input thread stops reading, instead of answers piling up. It stays
                // taken while the after-answer work runs too, so a drain at end of input waits for it.
                if case .batch(let collector, _) = target {
                    // Held by the batch: they run once its whole array is queued, by whoever completes it.
                    collector.hold(context.afterAnswerActions)
                    if let array = connection.answer(outcome, for: context, target: target) {
                        await connection.send(array)
                        await collector.runHeldActions()
                    }
                } else {
                    if let answer = connection.answer(outcome, for: context, target: target) {
                        context.afterAnswerActions?.answerGoesOut()
                        await connection.send(answer)
                    }
                    await context.afterAnswerActions?.run()
                }
                if let slot { slot.release() } else { connection.gate.release() }
            }
            request?.attach { task.cancel() }
        }
    }

    /// Registers a request (one with an id) in the in-flight table, so a cancel reaches it while it
    /// waits, and hands the admission gate a start that runs `run` with it once it has a slot: waits for
    /// room (the input thread stops reading), or, on a connection that refuses, answers the request with
    /// the policy's error at once. A request cancelled while it waited was answered then: its slot goes
    /// back and `run` does not run.
    func admit(context: RequestContext, target: ReplyTarget, _ run: @escaping @Sendable (InFlightRequest?) -> Void) {
        let connection = self.connection
        let request = context.id == nil ? nil : InFlightRequest(context: context, target: target)
        if let request { connection.inFlight.insert(request) }
        let start: @Sendable () -> Void = {
            if let request, !request.markStarted() {
                connection.gate.release()
                return
            }
            run(request)
        }
        guard case .refuse(let refusal) = connection.admission else {
            return connection.gate.submit(start, beforeWaiting: { flushReplies() })
        }
        guard !connection.gate.trySubmit(start) else { return }
        if let request { connection.inFlight.remove(request) }
        // Built alone and handed to `reply`, which completes a batch's array and runs its after-answer work.
        if let answer = connection.answer(.failure(refusal(context.method, connection.gate.capacity)), for: context, target: .single) {
            reply(answer, target: target)
        }
    }

    /// Cancels the request `idView` names (`$/cancelRequest`'s `id`, `notifications/cancelled`'s
    /// `requestId`); false when it names none.
    private func cancel(_ idView: JSONView?) -> Bool {
        guard let idView, let id = RequestID(idView) else {
            connection.logger.debug("ignored a cancellation that names no request id")
            return false
        }
        let (found, waiting) = connection.inFlight.cancel(id)
        if found == 0 {
            connection.logger.debug("ignored a cancellation of \(id): not in flight")
        }
        // Requests still waiting for a slot are answered now; running ones answer when they stop.
        for request in waiting {
            connection.inFlight.remove(request)
            if let answer = connection.answer(.failure(.cancelled), for: request.context, target: request.target) {
                flushReplies()
                connection.sendBlocking(answer)
                if case .batch(let collector, _) = request.target { collector.runHeldActionsLater() }
            }
        }
        return true
    }

    /// `params._meta.progressToken`, when it is a string or an integer.
    static func progressToken(in params: JSONView?) -> JSONValue? {
        guard let token = params?["_meta"]?["progressToken"], token.kind == .string || token.kind == .integer else { return nil }
        return JSONValue(token)
    }
}

extension Connection {
    /// The message that answers a task-run request: its response, or its batch's array once this was
    /// the batch's last answer; `nil` when nothing is to be sent yet (or ever, for a notification).
    func answer(_ outcome: Result<JanssonValue, ResponseError>, for context: RequestContext, target: ReplyTarget) -> JanssonValue? {
        guard let id = context.id else {
            if case .failure(let error) = outcome, error.code != .requestCancelled {
                logger.warning("notification \(LogText.escaped(context.method)) failed: \(LogText.escaped(error.message))")
            }
            return nil
        }
        let message: JanssonValue
        switch outcome {
        case .success(let result):
            message = context.exactID.map { OutgoingMessage.response(id: $0.view, result: result) }
                ?? OutgoingMessage.response(id: id, result: result)
        case .failure(let error):
            if error.code == .internalError { logger.error("\(LogText.escaped(context.method)) failed: \(LogText.escaped(error.message))") }
            message = context.exactID.map { OutgoingMessage.errorResponse(id: $0.view, error: error) }
                ?? OutgoingMessage.errorResponse(id: id, error: error)
        }
        switch target {
        case .single: return message
        case .batch(let collector, let index): return collector.add(message, at: index)
        case .none: return nil
        }
    }
}

/// Notifications the connection handles itself, before method lookup.
enum BuiltinNotifications {
    static let exit = "exit"

    /// `$/cancelRequest` (LSP) or `notifications/cancelled` (MCP); the first byte rules out most
    /// methods before any string comparison.
    static func isCancellation(_ method: String) -> Bool {
        switch method.utf8.first {
        case UInt8(ascii: "$"): method == "$/cancelRequest"
        case UInt8(ascii: "n"): method == "notifications/cancelled"
        default: false
        }
    }
}
