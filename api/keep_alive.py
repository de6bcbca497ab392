"""Keep-alives of idle streams: a comment frame after a stretch of silence.

Proxies close connections that carry nothing for a while, and a run can wait minutes on a model.
The stream pings from its own loop, only when idle (`api.run_channel.Channel.get` returns None
after `idle_s` without an event), instead of a ping task per response.
"""

from __future__ import annotations

from sse_starlette import ServerSentEvent


def keep_alive() -> ServerSentEvent:
    """A comment frame: clients ignore it, proxies see traffic on an idle stream."""
    return ServerSentEvent(comment="ping")
