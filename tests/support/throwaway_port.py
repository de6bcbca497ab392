"""Start a throwaway server on a free loopback port, again on another one when it dies before it answers.

The machine is shared by every test and CI run: a fixed port can be held by another run's server (CI once
failed with two of them refusing connections on 55430 and 55440), and even a port free a moment ago can be
taken before the server binds it. A server that exits before it is ready is started again on a new port."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from tests.support.live_server import free_port

ATTEMPTS = 3


class ServerDidNotStart(RuntimeError):
    """The server exited or stayed deaf on every attempt."""


def start_on_free_port(
    launch: Callable[[int], subprocess.Popen[bytes]],
    ready: Callable[[int], bool],
    *,
    timeout_s: float,
    what: str,
) -> tuple[subprocess.Popen[bytes], int]:
    """(process, port) of a server `launch(port)` started that `ready(port)` confirms answers on `port`.

    `ready` is polled only while the process lives, so a server that lost the port race is never confused
    with the stranger holding it."""
    for _ in range(ATTEMPTS):
        port = free_port()
        server = launch(port)
        deadline = time.monotonic() + timeout_s
        while server.poll() is None and time.monotonic() < deadline:
            if ready(port):
                return server, port
            time.sleep(0.2)
        if server.poll() is None:  # alive but deaf past the deadline: give up on it
            server.kill()
            server.wait(timeout=10)
            raise ServerDidNotStart(f"{what} did not answer on port {port} within {timeout_s:.0f} s")
    raise ServerDidNotStart(f"{what} exited before answering on {ATTEMPTS} free ports")
