"""An MCP client made with the official Python SDK (PyPI `mcp`), unchanged, driving switchboard's MCP
server face over stdio: the handshake, tools page by page, a tool call and a tool error, resources,
a resource update after a write, progress and cancellation of a slow call.

Usage: python client.py SWITCHBOARD [ARGS...]. Prints one JSON object of what it saw on its last
line; exits 1 with the reason on stderr when something is not as MCP says.
"""

import json
import sys

import anyio
from jsonschema import Draft202012Validator
from mcp import ClientSession, McpError, StdioServerParameters, types
from mcp.client.stdio import stdio_client

# A hang guard only, never a speed check: every wait below ends on an event.
HANG_GUARD_SECONDS = 120


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def main(command, arguments):
    updated = anyio.Event()
    updates = []

    async def on_message(message):
        if isinstance(message, types.ServerNotification) and isinstance(message.root, types.ResourceUpdatedNotification):
            updates.append(str(message.root.params.uri))
            updated.set()

    server = StdioServerParameters(command=command, args=arguments)
    seen = {}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            with anyio.fail_after(HANG_GUARD_SECONDS):
                init = await session.initialize()
                check(init.protocolVersion == types.LATEST_PROTOCOL_VERSION, f"protocolVersion {init.protocolVersion}")
                check(init.capabilities.resources.subscribe is True, "resources.subscribe capability")
                check(init.capabilities.tools is not None, "tools capability")
                seen["protocolVersion"] = init.protocolVersion
                await session.send_ping()

                # Every page of tools, by cursor.
                tools, pages, cursor = {}, 0, None
                while True:
                    page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                    pages += 1
                    tools.update({tool.name: tool for tool in page.tools})
                    cursor = page.nextCursor
                    if cursor is None:
                        break
                for name in ("inbox.list", "mail.send", "host.sleep", "feed.get"):
                    check(name in tools, f"{name} is not a tool")
                for tool in tools.values():
                    Draft202012Validator.check_schema(tool.inputSchema)
                    if tool.outputSchema is not None:
                        Draft202012Validator.check_schema(tool.outputSchema)
                check(tools["inbox.list"].outputSchema is not None, "inbox.list has no outputSchema")
                check(tools["mail.send"].inputSchema.get("required") == ["to", "subject", "text"], "mail.send's required params")
                seen["tools"], seen["pages"] = len(tools), pages

                # A call: structuredContent (the SDK checks it against outputSchema) and the same JSON as text.
                inbox = await session.call_tool("inbox.list", {"limit": 2})
                check(not inbox.isError, f"inbox.list failed: {inbox.content}")
                check(len(inbox.structuredContent["items"]) == 2, "inbox.list's two items")
                check(json.loads(inbox.content[0].text) == inbox.structuredContent, "text block and structuredContent differ")
                seen["firstThread"] = inbox.structuredContent["items"][0]["threadId"]

                # A domain error is a result with isError, not a JSON-RPC error.
                wrong = await session.call_tool("inbox.list", {"limit": "three"})
                check(wrong.isError, "a bad limit is not isError")
                seen["toolError"] = json.loads(wrong.content[0].text)["data"]["field"]

                # An unknown tool is a protocol error.
                try:
                    await session.call_tool("no.such", {})
                    check(False, "an unknown tool answered")
                except McpError as error:
                    seen["unknownTool"] = error.error.code

                # Resources: listed, read, subscribed; a write sends notifications/resources/updated.
                resources = await session.list_resources()
                check("mail://inbox" in [str(resource.uri) for resource in resources.resources], "mail://inbox is not listed")
                templates = await session.list_resource_templates()
                seen["templates"] = [template.uriTemplate for template in templates.resourceTemplates]
                read = await session.read_resource("mail://inbox")
                check(json.loads(read.contents[0].text)["items"], "mail://inbox reads no items")
                await session.subscribe_resource("mail://inbox")
                sent = await session.call_tool("mail.send", {"to": "ada@example.com", "subject": "Lunch?", "text": "Thursday?"})
                check(not sent.isError, f"mail.send failed: {sent.content}")
                await updated.wait()
                seen["updated"] = updates[0]
                await session.unsubscribe_resource("mail://inbox")

                # A slow call: progress arrives, then notifications/cancelled stops it (-32800).
                progressed = anyio.Event()
                outcome = {}

                async def on_progress(progress, total, message):
                    outcome.setdefault("progress", (progress, total))
                    progressed.set()

                async def slow_call():
                    try:
                        await session.call_tool("host.sleep", {"ms": 600000, "steps": 6000}, progress_callback=on_progress)
                        outcome["answered"] = True
                    except McpError as error:
                        outcome["error"] = error.error.code

                async with anyio.create_task_group() as group:
                    # The SDK numbers requests in order and has no call to cancel one: the next id is the call's.
                    request_id = session._request_id
                    group.start_soon(slow_call)
                    await progressed.wait()
                    await session.send_notification(types.ClientNotification(types.CancelledNotification(
                        params=types.CancelledNotificationParams(requestId=request_id, reason="test"))))
                check(outcome.get("error") == -32800, f"the cancelled call ended with {outcome}")
                seen["progress"] = outcome["progress"]
                seen["cancelled"] = outcome["error"]
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv[1], sys.argv[2:])
    except Exception as error:  # noqa: BLE001 - the reason goes to the test's log
        print(f"mcp client: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
