"""The frontend's static assets, and nothing else of its package directory.

The frontend is a Python package (so it is installed with the service); serving its directory as-is
also served `__init__.py` and anything a build left beside it. Only the asset types the pages use
are served; any other path is 404, like a missing file.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

ASSET_SUFFIXES = frozenset({".html", ".js", ".css", ".png", ".svg", ".ico", ".woff2"})


class FrontendFiles(StaticFiles):
    """`StaticFiles(html=True)` limited to the frontend's asset types (`/` still serves index.html)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        # `path` is normalised by StaticFiles: "." is the root (index.html), no trailing slash.
        name = PurePosixPath(path)
        hidden = any(part.startswith((".", "_")) for part in name.parts)
        readable = scope["method"] in ("GET", "HEAD")  # other methods: StaticFiles' own 405
        if readable and path != "." and (hidden or name.suffix not in ASSET_SUFFIXES):
            raise HTTPException(404)
        return await super().get_response(path, scope)
