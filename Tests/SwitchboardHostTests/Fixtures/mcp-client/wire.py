"""A tap between an MCP SDK session and its transport: it relays every message unchanged and keeps
both directions as JSON-RPC dicts, so a script can check what the SDK sends or drops (a courtesy
`notifications/cancelled`, the answer to a call it abandoned) and wait for such a message."""

import anyio
from mcp.shared.message import SessionMessage


class Wire:
    """The messages seen each way; `wait_for` ends on the first one that matches."""

    def __init__(self):
        self.sent, self.received = [], []
        self._arrived = anyio.Event()

    async def wait_for(self, direction, predicate):
        """The first message in `direction` ("sent" or "received") for which `predicate` holds."""
        while True:
            for message in getattr(self, direction):
                if predicate(message):
                    return message
            await self._arrived.wait()

    def _record(self, log, item):
        if isinstance(item, SessionMessage):
            log.append(item.message.model_dump(mode="json", by_alias=True, exclude_none=True))
            self._arrived.set()
            self._arrived = anyio.Event()

    async def _relay(self, source, sink, log):
        async with sink:
            async for item in source:
                self._record(log, item)
                await sink.send(item)

    def tap(self, group, read, write):
        """Starts the two relays in `group`; returns the (read, write) pair to give the session."""
        to_session, session_read = anyio.create_memory_object_stream(0)
        session_write, from_session = anyio.create_memory_object_stream(0)
        group.start_soon(self._relay, read, to_session, self.received)
        group.start_soon(self._relay, from_session, write, self.sent)
        return session_read, session_write
