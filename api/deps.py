"""Dependency aliases that hand routes what the composition root built; tests override them."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.composition import Services


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]
