"""`create_app(settings)`: the FastAPI application and the lifespan that owns the composition root."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI

from api.body_limit import BodyLimit
from api.body_timeout import BodyTimeout
from api.composition import build_services, close_services
from api.errors import install_error_handlers
from api.frontend_files import FrontendFiles
from api.openapi import install_openapi
from api.routes import aiops, alertmanager, chat, feedback, health, investigations, report, runs
from api.security_headers import SecurityHeaders
from api.settings import Settings

log = logging.getLogger("superbiz.app")


def frontend_dir() -> Path:
    """The bundled static frontend, found through the installed package."""
    return Path(str(files("frontend")))


_collector_tuned = False

# Young collections every 50,000 net allocations instead of 700 (the older generations keep their
# default ratios of 10). A run allocates in bursts (twenty tool results landing in the same instant,
# each thinned, bounded and redacted on the event loop); at the default the collector ran dozens of
# times inside one burst and its older-generation passes were the outliers of the parallel-evidence
# rounds. Reference counting still frees everything that is not a cycle at once; cycles are found
# less often, which the bench's RSS-growth figure watches (figures: bench/README.md).
_COLLECTOR_THRESHOLDS = (50_000, 10, 10)


def _tune_collector() -> None:
    """Freeze what imports and start-up built out of the collector's sight, and collect the young
    generation less often; once per process.

    The start-up objects live as long as the process; without the freeze every full collection
    walks them all, which paused the event loop under load (figures: bench/README.md).
    """
    global _collector_tuned
    if not _collector_tuned:
        _collector_tuned = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(*_COLLECTOR_THRESHOLDS)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; its parts are built in the lifespan, once per process."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings)
        app.state.services = services
        _tune_collector()
        try:
            yield
        finally:
            await close_services(services)

    app = FastAPI(
        title="SuperBiz Agent",
        version="0.1.0",
        description="Diagnoses production incidents with every claim checked against evidence.",
        lifespan=lifespan,
        # Served by install_openapi instead, behind the bearer tokens when they are configured.
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(app)
    install_openapi(app)
    routers = (health, chat, aiops, runs, report, feedback, alertmanager, investigations)
    for router in (module.router for module in routers):
        app.include_router(router)
    app.mount("/", FrontendFiles(directory=frontend_dir(), html=True), name="frontend")
    app.add_middleware(BodyLimit, max_bytes=settings.chat.max_body_bytes)
    app.add_middleware(BodyTimeout, timeout_s=settings.chat.body_read_timeout_s)
    app.add_middleware(SecurityHeaders)
    return app
