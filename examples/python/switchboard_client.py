"""A switchboard host driven as a test harness drives it: a child process over stdio.

The framing and the request/response bookkeeping are python-lsp-jsonrpc's (`JsonRpcStreamReader`,
`JsonRpcStreamWriter`, `Endpoint`): the host detects the `Content-Length:` framing from the first
bytes. Every message the host sends is checked at the tap between the reader and the endpoint:
the envelope, an error's shape, a result against its method's schema from `rpc.discover`, a
notification against its `x-notifications` entry (`Schemas`).
"""
import itertools
import queue
import subprocess
import threading

from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.exceptions import JsonRpcException
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

# How long a test waits for an event before failing (a guard against a hang, not a timing assumption).
HANG_GUARD_SECONDS = 60


class Notifications:
    """The dispatcher the endpoint hands notifications to: every method goes to one queue, in order."""

    def __init__(self):
        self.queue = queue.Queue()

    def __getitem__(self, method):
        return lambda params: self.queue.put((method, params))


class Host:
    """A running `switchboard serve` with a JSON-RPC endpoint on its pipes.

    `call` answers the result or raises `JsonRpcException` (with `code`, `message`, `data`);
    `next_notification` waits for the next push of a method. `problems` lists every message that broke
    its schema (empty when `schemas` is None: the discovery session itself).
    """

    def __init__(self, binary, *arguments, schemas=None):
        self.schemas = schemas
        self.problems = []
        self._methods = {}  # request id -> method, to pick the result schema
        self._ids = itertools.count(1)
        self.process = subprocess.Popen([binary, "serve", *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._stderr = []
        self._stderr_reader = threading.Thread(target=lambda: self._stderr.extend(self.process.stderr), daemon=True)
        self._stderr_reader.start()
        self._writer = JsonRpcStreamWriter(self.process.stdin)
        self.notifications = Notifications()
        self.endpoint = Endpoint(self.notifications, self._send, id_generator=lambda: next(self._ids))
        self._reader = JsonRpcStreamReader(self.process.stdout)
        threading.Thread(target=self._reader.listen, args=(self._receive,), daemon=True).start()

    def _send(self, message):
        if "id" in message and "method" in message:
            self._methods[message["id"]] = message["method"]
        self._writer.write(message)

    def _receive(self, message):
        if self.schemas is not None:
            method = self._methods.get(message.get("id")) if "method" not in message else None
            self.problems += self.schemas.problems(message, answering=method)
        self.endpoint.consume(message)

    def call(self, method, params=None):
        """The result of one request, or `JsonRpcException` for an error answer."""
        return self.endpoint.request(method, params).result(HANG_GUARD_SECONDS)

    def error(self, method, params=None):
        """The error a request is answered with (fails when it succeeds)."""
        try:
            result = self.call(method, params)
        except JsonRpcException as error:
            return error
        raise AssertionError(f"{method} succeeded: {result}")

    def next_notification(self, method):
        """The params of the next `method` notification; others before it are skipped."""
        while True:
            name, params = self.notifications.queue.get(timeout=HANG_GUARD_SECONDS)
            if name == method:
                return params

    def close(self):
        """Ends input, waits for the host to exit, and answers its exit status (again on a second call)."""
        if self.process.returncode is None:
            self.endpoint.shutdown()
            self._writer.close()
            self.process.wait(HANG_GUARD_SECONDS)
            self._stderr_reader.join(HANG_GUARD_SECONDS)
        return self.process.returncode

    @property
    def stderr(self):
        return b"".join(self._stderr).decode(errors="replace")
