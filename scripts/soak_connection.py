"""scripts/soak's JSON-RPC connection over a host's pipes: every frame checked, every request answered
exactly once."""
import json, signal, threading
from collections import Counter

PLUGIN_ERROR = -32070          # a plugin unavailable: killed in the middle of the call
CANCELLED = -32800
RESPONSE_MEMBERS = {"jsonrpc", "id", "result", "error"}


class Pending:
    __slots__ = ("kind", "allowed", "on_answer", "cancelled")

    def __init__(self, kind, allowed, on_answer):
        self.kind, self.allowed, self.on_answer, self.cancelled = kind, allowed, on_answer, False


class Connection:
    """A client of one host process over its stdin/stdout (NDJSON). Every line the host writes must
    be a JSON-RPC 2.0 response to a request in flight (each answered once) or a notification."""

    def __init__(self, name, process, window=24):
        self.name, self.process = name, process
        self._lock = threading.Lock()
        self._next = 0
        self.pending = {}
        self.answered = set()
        self.sent = Counter()
        self.by_kind = Counter()
        self.errors = Counter()
        self.pushes = Counter()
        self.problems = []
        self.listeners = {}             # notification method → callback(params)
        self.ended = False              # the host's output ended
        self.input_closed = False
        self.window = threading.Semaphore(window)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # Sending

    def request(self, kind, method, params=None, allowed=(), on_answer=None, string_id=False):
        while not self.window.acquire(timeout=1):
            if self.ended:
                return None
        if self.ended:
            return None
        with self._lock:
            self._next += 1
            request_id = f"{self.name}-{self._next}" if string_id else self._next
            self.pending[request_id] = Pending(kind, allowed, on_answer)
            self.sent[kind] += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)
        return request_id

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)

    def cancel(self, request_id, method="$/cancelRequest", member="id"):
        """Cancels a request if it is still in flight; answers whether a cancellation went out."""
        with self._lock:
            pending = self.pending.get(request_id)
            if pending is None:
                return False
            pending.cancelled = True
        self.notify(method, {member: request_id})
        return True

    def in_flight(self):
        with self._lock:
            return list(self.pending.items())

    def _write(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        with self._lock:
            try:
                self.process.stdin.write(data)
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError) as error:
                self.problems.append(f"{self.name}: writing failed: {error}")

    def close_input(self):
        self.input_closed = True
        with self._lock:
            self.process.stdin.close()

    def wait_exit(self, timeout):
        self.reader.join(timeout)
        try:
            return self.process.wait(timeout=max(1, timeout))
        except Exception:
            self.problems.append(f"{self.name}: did not exit within {timeout} s of end of input")
            self.process.kill()
            return self.process.wait()

    # Reading

    def _read(self):
        for line in self.process.stdout:
            self._frame(line)
        # The host closed its output: it exited. Before end of input, that is a crash.
        self.ended = True
        if not self.input_closed:
            status = self.process.wait()
            how = f"signal {signal.Signals(-status).name}" if status < 0 else f"status {status}"
            self._problem(f"the host exited before its input ended ({how}); a core file, if any, is in the work folder")

    def _frame(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            return self._problem(f"not JSON on stdout: {line[:120]!r}")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return self._problem(f"not a JSON-RPC 2.0 message: {line[:120]!r}")
        if "id" in message and "method" not in message:
            return self._response(message, line)
        if "method" in message and "id" not in message and isinstance(message["method"], str):
            params = message.get("params")
            if set(message) - {"jsonrpc", "method", "params"} or not isinstance(params, (dict, list, type(None))):
                return self._problem(f"malformed notification: {line[:120]!r}")
            self.pushes[message["method"]] += 1
            listener = self.listeners.get(message["method"])
            if listener:
                listener(params or {})
            return
        self._problem(f"neither a response nor a notification: {line[:120]!r}")

    def _response(self, message, line):
        request_id = message["id"]
        has_result, has_error = "result" in message, "error" in message
        if set(message) - RESPONSE_MEMBERS or has_result == has_error:
            self._problem(f"malformed response: {line[:120]!r}")
        error = message.get("error")
        if has_error and not (isinstance(error, dict) and isinstance(error.get("code"), int)
                              and isinstance(error.get("message"), str) and set(error) <= {"code", "message", "data"}):
            self._problem(f"malformed error object: {line[:120]!r}")
        with self._lock:
            pending = self.pending.pop(request_id, None) if isinstance(request_id, (int, str)) else None
            if pending is None:
                seen = request_id in self.answered if isinstance(request_id, (int, str)) else False
                self.problems.append(f"{self.name}: {'second' if seen else 'unknown'} answer for id {request_id!r}: {line[:120]!r}")
                return
            self.answered.add(request_id)
            self.by_kind[pending.kind] += 1
        self.window.release()
        if has_error and isinstance(error, dict):
            code = error.get("code")
            data = error.get("data")
            reason = data.get("reason") if isinstance(data, dict) and isinstance(data.get("reason"), str) else None
            self.errors[f"{pending.kind} {code}" + (f" ({reason})" if reason else "")] += 1
            if code == PLUGIN_ERROR and reason == "failed":
                self._problem(f"a plugin was left failed (crash limit reached): {line[:200]!r}")
            if code not in pending.allowed and not (code == CANCELLED and pending.cancelled):
                self._problem(f"unexpected error for {pending.kind}: {line[:200]!r}")
        if pending.on_answer:
            pending.on_answer(message.get("result"), error)

    def _problem(self, text):
        with self._lock:
            self.problems.append(f"{self.name}: {text}")

    # Figures

    def answered_count(self):
        with self._lock:
            return len(self.answered)

    def failures(self):
        with self._lock:
            lost = [f"{self.name}: never answered: id {i!r} ({p.kind})" for i, p in self.pending.items()]
            return self.problems + lost

    def report(self):
        with self._lock:
            return {"sent": sum(self.sent.values()), "answered": len(self.answered), "pushes": sum(self.pushes.values()),
                    "by_kind": dict(self.by_kind), "errors": dict(self.errors), "notifications": dict(self.pushes)}
