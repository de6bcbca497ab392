"""A loopback TCP proxy a test can cut: the database behind it "goes down" for the app (open connections
reset, new ones refused) while the shared server itself is never touched."""

from __future__ import annotations

import asyncio
import contextlib

from tests.support.live_server import free_port


class TcpProxy:
    """Forwards 127.0.0.1:<port> to `target`; `cut()` drops every connection and stops listening."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = free_port()

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        return self

    async def cut(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()  # a reset, as a crashed server's peer sees it
        self._writers.clear()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(*self._target)
        except OSError:
            client_writer.transport.abort()
            return
        self._writers.update((client_writer, server_writer))
        await asyncio.gather(
            _pipe(client_reader, server_writer), _pipe(server_reader, client_writer), return_exceptions=True
        )
        for writer in (client_writer, server_writer):
            self._writers.discard(writer)
            writer.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while chunk := await reader.read(65_536):
            writer.write(chunk)
            await writer.drain()
    writer.transport.abort()
