"""The stateless MCP revision (2026-07-28) with the official Python SDK 2.x (PyPI `mcp>=2.3`),
unchanged: `ClientSession.discover()` instead of a handshake, tools page by page, a tool call, a
resource read, a `subscriptions/listen` stream that receives the update a write causes, and a slow
call the client abandons: the SDK sends `notifications/cancelled` and the host stops the call, answering
it -32800 (which the SDK drops, so a wire tap sees it) with nothing left in flight.

Usage: python client_stateless.py SWITCHBOARD [ARGS...]. Prints one JSON object of what it saw on its
last line; exits 1 with the reason on stderr when something is not as MCP says.
"""

import json
import sys
import traceback

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.subscriptions import ResourceUpdated, listen
from wire import Wire

# A hang guard only, never a speed check: every wait below ends on an event.
HANG_GUARD_SECONDS = 120


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def main(command, arguments):
    seen = {}
    server = StdioServerParameters(command=command, args=arguments)
    wire = Wire()
    async with stdio_client(server) as (read, write), anyio.create_task_group() as relays:
        async with ClientSession(*wire.tap(relays, read, write)) as session:
            with anyio.fail_after(HANG_GUARD_SECONDS):
                discovered = await session.discover()
                check(session.protocol_version == "2026-07-28", f"negotiated {session.protocol_version}")
                seen["protocolVersion"] = session.protocol_version
                seen["supportedVersions"] = discovered.supported_versions

                tools, pages, cursor = {}, 0, None
                while True:
                    page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                    pages += 1
                    tools.update({tool.name: tool for tool in page.tools})
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                check("inbox.list" in tools and "mail.send" in tools, "inbox.list and mail.send are tools")
                seen["tools"], seen["pages"] = len(tools), pages

                inbox = await session.call_tool("inbox.list", {"limit": 2})
                check(not inbox.is_error, f"inbox.list failed: {inbox.content}")
                check(len(inbox.structured_content["items"]) == 2, "inbox.list's two items")
                check(json.loads(inbox.content[0].text) == inbox.structured_content, "text block and structured_content differ")

                read = await session.read_resource("mail://inbox")
                check(json.loads(read.contents[0].text)["items"], "mail://inbox reads no items")

                async with listen(session, resource_subscriptions=["mail://inbox"]) as stream:
                    check(list(stream.honored.resource_subscriptions or []) == ["mail://inbox"], f"honored {stream.honored}")
                    sent = await session.call_tool("mail.send", {"to": "ada@example.com", "subject": "Lunch?", "text": "Thursday?"})
                    check(not sent.is_error, f"mail.send failed: {sent.content}")
                    event = await stream.__anext__()
                    check(isinstance(event, ResourceUpdated), f"event {event}")
                    seen["updated"] = event.uri

                # A slow call (600 s, progress every 100 ms) the client abandons once progress arrives.
                progressed = anyio.Event()

                async def on_progress(progress, total, message):
                    progressed.set()

                async with anyio.create_task_group() as group:
                    async def slow_call():
                        await session.call_tool("host.sleep", {"ms": 600000, "steps": 6000}, progress_callback=on_progress)

                    group.start_soon(slow_call)
                    await progressed.wait()
                    group.cancel_scope.cancel()
                seen["progressed"] = True

                # The SDK tells the host (its courtesy cancel), and the host stops the call: it answers
                # -32800, which it does only once the call's task has ended, and the hang guard (120 s)
                # is far shorter than the sleep, so the sleep did not run to its end.
                call = await wire.wait_for("sent", lambda m: m.get("method") == "tools/call"
                                           and m["params"]["name"] == "host.sleep")
                await wire.wait_for("sent", lambda m: m.get("method") == "notifications/cancelled"
                                    and m["params"]["requestId"] == call["id"])
                answer = await wire.wait_for("received", lambda m: m.get("id") == call["id"] and "method" not in m)
                check(answer.get("error", {}).get("code") == -32800, f"the cancelled call was answered {answer}")
                seen["cancelled"] = answer["error"]["code"]
                # Every request answered (the listen stream's too): only host.status, which counts itself, is in flight.
                for request in [m for m in wire.sent if "method" in m and "id" in m]:
                    await wire.wait_for("received", lambda m: m.get("id") == request["id"] and "method" not in m)
                status = await session.call_tool("host.status", {})
                check(status.structured_content["inFlight"] == 1, f"in flight besides host.status: {status.structured_content}")
                seen["inFlightAfterCancel"] = status.structured_content["inFlight"]
                seen["afterCancel"] = (await session.call_tool("host.ping", {})).content[0].text
        relays.cancel_scope.cancel()
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv[1], sys.argv[2:])
    except Exception as error:  # noqa: BLE001 - the reason goes to the test's log
        traceback.print_exc()
        print(f"mcp client: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
