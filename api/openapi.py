"""The OpenAPI document tells the truth about errors (every error body is `{code, message, data}`) and
about authentication (a bearer scheme on every `/api/` operation)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR_BODY = {
    "title": "ErrorBody",
    "type": "object",
    "required": ["code", "message", "data"],
    "properties": {
        "code": {"type": "string", "description": "stable application code, e.g. VALIDATION_ERROR"},
        "message": {"type": "string", "description": "a fixed public message"},
        "data": {"description": "details safe to show (e.g. which fields are invalid), or null"},
    },
}
_ERRORS = {
    "401": "A bearer token is required (when the server has tokens configured).",
    "404": "Not found (another principal's session is reported the same way).",
    "408": "The request body was not received in time (REQUEST_TIMEOUT).",
    "413": "The request body is too large.",
    "422": "The request is invalid (VALIDATION_ERROR; INVALID_CHARACTERS for control characters).",
    "503": "Busy, or the database is down (data.dependency = database); retry shortly.",
}
_READYZ_503 = "NOT_READY: a required dependency (the database) is unavailable; data.checks says which."
_REF = {"$ref": "#/components/schemas/ErrorBody"}
BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "Required on /api/ routes, /docs and /openapi.json when SUPERBIZ_API_TOKENS is set.",
}


def install_openapi(app: FastAPI) -> None:
    """Replace FastAPI's `{detail}` validation schema with our wrapper and declare the error codes."""

    def document() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        schemas["ErrorBody"] = ERROR_BODY
        schema["components"]["securitySchemes"] = {"bearer": BEARER}
        for path, operations in schema.get("paths", {}).items():
            if path == "/readyz":
                operations["get"].setdefault("responses", {})["503"] = _error(_READYZ_503)
            if not path.startswith("/api/"):
                continue
            for operation in operations.values():
                operation["security"] = [{"bearer": []}]
                responses = operation.setdefault("responses", {})
                for status, description in _ERRORS.items():
                    responses[status] = _error(description)
        app.openapi_schema = schema
        return schema

    app.openapi = document  # type: ignore[method-assign]


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _REF}}}
