"""The status page the daemon serves at ``/`` on its HTTP port: the device at a glance, live, offline.

:mod:`.collect` gathers what the page shows from a running :class:`~edge_agent.runtime.Runtime` as
plain data, :mod:`.chart` draws sensor readings as small SVG line charts on the server, and
:mod:`.web` serves the page, its static files (``static/``, shipped in the package) and the JSON the
page polls, behind the same bearer token as MCP.
"""
