"""A server written with the official MCP Python SDK's FastMCP, unchanged: two tools and a resource."""
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
def shout(text: str) -> str:
    """Upper-cases a text."""
    return text.upper()


@mcp.resource("notes://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "hello from FastMCP"


if __name__ == "__main__":
    mcp.run()
