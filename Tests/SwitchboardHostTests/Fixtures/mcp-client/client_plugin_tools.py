"""The official MCP Python SDK (PyPI `mcp`), unchanged, calling a plugin's tools through switchboard's
MCP server face: a tool that declared no outputSchema must be listed without one, or the SDK refuses
its result ("has an output schema but did not return structured content").

Usage: python client_plugin_tools.py SWITCHBOARD [ARGS...]. Prints one JSON object of what it saw on
its last line; exits 1 with the reason on stderr when something is not as MCP says.
"""

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# A hang guard only, never a speed check.
HANG_GUARD_SECONDS = 120


async def main(command, arguments):
    seen = {}
    async with stdio_client(StdioServerParameters(command=command, args=arguments)) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(HANG_GUARD_SECONDS):
                await session.initialize()
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                seen["outputSchema"] = tools["liar.ok"].outputSchema
                plain = await session.call_tool("liar.ok", {})
                seen["text"] = plain.content[0].text
                seen["isError"] = plain.isError
                structured = await session.call_tool(
                    "liar.say", {"members": '"result":{"content":[],"structuredContent":{"n":1}}'})
                seen["structured"] = structured.structuredContent
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv[1], sys.argv[2:])
    except Exception as error:  # noqa: BLE001 - the reason goes to the test's log
        print(f"mcp client: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
