"""FastMCP's `Client` (PyPI `fastmcp`, pinned by scripts/mcp-real-venv), unchanged, driving switchboard's MCP
server face over stdio: every tool on one page, `inbox.list` called, `mail://inbox` read and subscribed to, the
update a write (`mail.send`) brings, and a slow call (`host.sleep`) cancelled by `Client.cancel` with the id its
progress notification names, which the host ends with -32800.

Usage: python client_fastmcp.py MODE SWITCHBOARD [ARGS...]. MODE is FastMCP's connect mode: `legacy` (the
2025-11-25 handshake; `resources/subscribe`) or `auto` (its default: it probes `server/discover` and adopts
2026-07-28; `subscriptions/listen`). Prints one JSON object of what it saw on its last line; exits 1 with the
reason on stderr when something is not as MCP says.
"""

import json
import sys
import traceback
import warnings

import anyio
import mcp_types
from fastmcp import Client
from fastmcp.client.messages import MessageHandler
from fastmcp.client.transports import StdioTransport
from mcp import MCPError
from mcp.client.subscriptions import ResourceUpdated, listen

# A hang guard only, never a speed check: every wait below ends on an event.
HANG_GUARD_SECONDS = 120


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Notifications(MessageHandler):
    """Keeps the resource updates and the progress notifications the server sends, each waitable."""

    def __init__(self):
        self.updates, self.progress = [], []
        self.updated, self.progressed = anyio.Event(), anyio.Event()

    async def on_resource_updated(self, message: mcp_types.ResourceUpdatedNotification) -> None:
        self.updates.append(str(message.params.uri))
        self.updated.set()

    async def on_progress(self, message: mcp_types.ProgressNotification) -> None:
        self.progress.append(message.params)
        self.progressed.set()


async def main(mode, command, arguments):
    seen = {}
    notifications = Notifications()
    client = Client(StdioTransport(command, arguments, keep_alive=False), mode=mode, message_handler=notifications)
    with anyio.fail_after(HANG_GUARD_SECONDS):
        async with client:
            seen["protocolVersion"] = client.protocol_version
            check(await client.ping(), "ping")

            # Every tool on the first page (the test checks it has no nextCursor), the domains' tools among them.
            page = await client.list_tools_mcp()
            names = [tool.name for tool in page.tools]
            for name in ("inbox.list", "mail.send", "host.sleep"):
                check(name in names, f"{name} is not on the first page")
            seen["tools"], seen["nextCursor"] = len(names), page.next_cursor
            seen["allTools"] = len(await client.list_tools())

            # A call: FastMCP checks structuredContent against inbox.list's outputSchema.
            inbox = await client.call_tool("inbox.list", {"limit": 2})
            check(len(inbox.structured_content["items"]) == 2, "inbox.list's two items")
            seen["inbox"] = len(inbox.structured_content["items"])
            wrong = await client.call_tool("inbox.list", {"limit": "three"}, raise_on_error=False)
            check(wrong.is_error, "a bad limit is not isError")
            seen["toolError"] = json.loads(wrong.content[0].text)["data"]["field"]

            # A resource read, subscribed, and the update a write brings.
            contents = await client.read_resource("mail://inbox")
            check(json.loads(contents[0].text)["items"], "mail://inbox reads no items")
            draft = {"to": "ada@example.com", "subject": "Lunch?", "text": "Thursday?"}
            if client.protocol_version == "2026-07-28":
                async with listen(client.session, resource_subscriptions=["mail://inbox"]) as stream:
                    honored = list(stream.honored.resource_subscriptions or [])
                    check(honored == ["mail://inbox"], f"honored {stream.honored}")
                    sent = await client.call_tool("mail.send", draft)
                    check(not sent.is_error, f"mail.send failed: {sent.content}")
                    event = await stream.__anext__()
                    check(isinstance(event, ResourceUpdated), f"event {event}")
                    seen["updated"] = event.uri
            else:
                # 2025-11-25's way, which the SDK 2.x warns is gone from 2026-07-28 (the branch above).
                warnings.filterwarnings("ignore", message="resources/(un)?subscribe is removed")
                await client.session.subscribe_resource("mail://inbox")
                sent = await client.call_tool("mail.send", draft)
                check(not sent.is_error, f"mail.send failed: {sent.content}")
                await notifications.updated.wait()
                seen["updated"] = notifications.updates[0]
                await client.session.unsubscribe_resource("mail://inbox")

            # A slow call (600 s, progress every 100 ms): its first progress names the request (the SDK's
            # progress token is the request id), and Client.cancel stops it; the host answers -32800.
            outcome = {}

            async def slow_call():
                try:
                    await client.call_tool("host.sleep", {"ms": 600000, "steps": 6000})
                    outcome["answered"] = True
                except MCPError as error:
                    outcome["error"] = error.error.code

            async with anyio.create_task_group() as group:
                group.start_soon(slow_call)
                await notifications.progressed.wait()
                await client.cancel(notifications.progress[0].progress_token, reason="test")
            check(outcome.get("error") == -32800, f"the cancelled call ended with {outcome}")
            seen["cancelled"] = outcome["error"]
            seen["afterCancel"] = (await client.call_tool("host.ping", {})).content[0].text
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:])
    except Exception as error:  # noqa: BLE001 - the reason goes to the test's log
        traceback.print_exc()
        print(f"fastmcp client: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
