"""The OpenAPI document tells the truth about errors (every error body is `{code, message, data}`,
`errors.ErrorBody`) and about authentication (a bearer scheme on every `/api/` operation); success
bodies come from the routes' response models."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse

from api.deps import get_principal
from api.errors import ErrorBody

_ERRORS = {
    "401": "A bearer token is required (when the server has tokens configured).",
    "404": "Not found (another principal's session is reported the same way).",
    "408": "The request body was not received in time (REQUEST_TIMEOUT).",
    "413": "The request body is too large.",
    "422": "The request is invalid (VALIDATION_ERROR; INVALID_CHARACTERS for control characters).",
    "503": "Busy, or the database is down (data.dependency = database); retry shortly.",
}
# OpenAPI links: how a client (and schemathesis' stateful tests) follows a run from the stream that
# started it to its history, its trace and its feedback.
_RUNS = "#/paths/~1api~1chat~1session~1{sessionId}~1runs/get"
_TRACE = "#/paths/~1api~1diagnosis~1{sessionId}~1trace/get"
_FEEDBACK = "#/paths/~1api~1feedback/post"
_RUN_HEADERS = {
    "X-Session-Id": {"description": "the run's session", "schema": {"type": "string"}},
    "X-Run-Id": {"description": "the run", "schema": {"type": "string"}},
}
_FROM_STREAM = {
    "RunsOfTheSession": {
        "operationRef": _RUNS,
        "parameters": {"path.sessionId": "$response.header.X-Session-Id"},
    },
    "TraceOfTheRun": {
        "operationRef": _TRACE,
        "parameters": {
            "path.sessionId": "$response.header.X-Session-Id",
            "query.runId": "$response.header.X-Run-Id",
        },
    },
    "FeedbackOnTheRun": {
        "operationRef": _FEEDBACK,
        "requestBody": {"sessionId": "$response.header.X-Session-Id", "runId": "$response.header.X-Run-Id"},
    },
}
_LINKS: dict[tuple[str, str], dict[str, Any]] = {
    ("/api/chat", "post"): _FROM_STREAM,
    ("/api/ai_ops", "post"): _FROM_STREAM,
    ("/api/chat/session/{sessionId}/runs", "get"): {
        "TraceOfTheNewestRun": {
            "operationRef": _TRACE,
            "parameters": {
                "path.sessionId": "$response.body#/data/0/sessionId",
                "query.runId": "$response.body#/data/0/runId",
            },
        }
    },
    ("/api/diagnosis/{sessionId}/trace", "get"): {
        "FeedbackOnTheRun": {
            "operationRef": _FEEDBACK,
            "requestBody": {
                "sessionId": "$response.body#/data/run/sessionId",
                "runId": "$response.body#/data/run/runId",
            },
        }
    },
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
        schemas["ErrorBody"] = ErrorBody.model_json_schema()
        schema["components"]["securitySchemes"] = {"bearer": BEARER}
        for path, operations in schema.get("paths", {}).items():
            if path == "/readyz":
                operations["get"].setdefault("responses", {})["503"] = _error(_READYZ_503)
            if not path.startswith("/api/"):
                continue
            for method, operation in operations.items():
                operation["security"] = [{"bearer": []}]
                responses = operation.setdefault("responses", {})
                for status, description in _ERRORS.items():
                    responses[status] = _error(description)
                links = _LINKS.get((path, method))
                if links is not None:
                    responses["200"]["links"] = links
                    if links is _FROM_STREAM:
                        responses["200"]["headers"] = _RUN_HEADERS
        app.openapi_schema = schema
        return schema

    app.openapi = document  # type: ignore[method-assign]
    _install_docs(app)


def _install_docs(app: FastAPI) -> None:
    """`/openapi.json` and `/docs` behind the same bearer tokens as the API (FastAPI's own are off)."""
    guarded = [Depends(get_principal)]
    page = get_swagger_ui_html(openapi_url="/openapi.json", title=f"{app.title} - API docs")
    headers = {"Content-Security-Policy": _docs_policy(bytes(page.body).decode())}

    @app.get("/openapi.json", include_in_schema=False, dependencies=guarded)
    async def openapi_document() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=guarded)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page.body, headers=headers)


def _docs_policy(html: str) -> str:
    """Swagger UI's page loads its bundle from a CDN and starts it with one inline script: allow
    exactly that script (by hash) and the CDN, nothing else."""
    inline = re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL)
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in inline
    )
    cdn = "https://cdn.jsdelivr.net"
    return (
        f"default-src 'none'; script-src {cdn} {hashes}; style-src {cdn}; img-src 'self' data: https:; "
        "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
    )


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _REF}}}
