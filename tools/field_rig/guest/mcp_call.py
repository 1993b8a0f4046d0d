"""Call one MCP tool over streamable HTTP with the MCP SDK's own client, as an agent host does.

    python mcp_call.py URL TOOL 'JSON_ARGS'      (bearer token in $MCP_TOKEN)

Prints {"isError": ..., "structured": ..., "text": ...} as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, tool: str, args: dict[str, object]) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {os.environ['MCP_TOKEN']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, read_timeout_seconds=120) as session,
    ):
        await session.initialize()
        result = await session.call_tool(tool, args)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    return {"isError": result.is_error, "structured": result.structured_content, "text": text}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))))
