"""Dependency aliases that hand routes what the composition root built; tests override them.

They are `async def` although they never await: FastAPI runs a plain `def` dependency in a worker
thread, which under load meant up to 40 extra threads and a thread hop per request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.composition import Services
from api.errors import Unauthorized


async def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_principal(request: Request, services: ServicesDep) -> str | None:
    """The caller's principal; None when authentication is not configured."""
    tokens = services.tokens
    if not tokens.enabled:
        return None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    principal = tokens.principal_for(token.strip()) if scheme.lower() == "bearer" else None
    if principal is None:
        raise Unauthorized()
    return principal


PrincipalDep = Annotated[str | None, Depends(get_principal)]
