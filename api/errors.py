"""Errors the API reports: a stable code, a public message, an HTTP status; one place turns them into JSON.

Exception text never reaches a client: unexpected errors are logged with the request path and answered
with a fixed INTERNAL_ERROR body.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("superbiz.api")

# The pydantic error type of text holding control characters (api/schemas.py): answered 422 with its
# own code, so a client can tell "remove the control characters" from any other invalid input.
INVALID_CHARACTERS_ERROR = "invalid_characters"


class ApiError(Exception):
    """A failure with a stable code and a message that is safe to show."""

    status_code = 400
    code = "BAD_REQUEST"
    message = "The request is invalid."

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        super().__init__(message or self.message)
        self.public_message = message or self.message
        self.data = data


class NotFound(ApiError):
    status_code = 404
    code = "NOT_FOUND"
    message = "Not found."


class Unavailable(ApiError):
    status_code = 503
    code = "UNAVAILABLE"
    message = "The service is busy; retry shortly."


class DatabaseUnavailable(Unavailable):
    """The application database cannot be reached: the same retryable code, the dependency named."""

    message = "The database is unavailable; retry shortly."

    def __init__(self) -> None:
        super().__init__(data={"dependency": "database"})


def database_outage(exc: BaseException) -> bool:
    """Whether `exc` says the database cannot be reached (refused, gone, pool exhausted), as opposed
    to a statement the database refused, which is a bug (500)."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError)


class Unauthorized(ApiError):
    status_code = 401
    code = "AUTH_REQUIRED"
    message = "A valid bearer token is required."


class QueryTooLong(ApiError):
    """The question is longer than `chat.max_query_chars` (the schema's hard ceiling is larger)."""

    status_code = 422
    code = "QUERY_TOO_LONG"
    message = "The query is too long."


class PayloadTooLarge(ApiError):
    """A body over `chat.max_body_bytes`; raised as HTTP 413 or answered by `api/body_limit.py`."""

    status_code = 413
    code = "PAYLOAD_TOO_LARGE"
    message = "The request body is too large."


class ErrorBody(BaseModel):
    """Every error response: the OpenAPI document declares it for each error status."""

    code: str = Field(description="stable application code, e.g. VALIDATION_ERROR")
    message: str = Field(description="a fixed public message")
    data: Any = Field(description="details safe to show (e.g. which fields are invalid), or null")


_HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "AUTH_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    408: "REQUEST_TIMEOUT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_ERROR",
    429: "TOO_MANY_REQUESTS",
    503: "UNAVAILABLE",
}


def envelope(data: Any = None, *, code: str = "OK", message: str = "ok") -> dict[str, Any]:
    """The `{code, message, data}` wrapper every JSON response uses."""
    return {"code": code, "message": message, "data": data}


def error_response(
    status: int, code: str, message: str, data: Any = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(envelope(data, code=code, message=message), status, headers=headers)


def _validation_details(exc: RequestValidationError) -> list[dict[str, str]]:
    # Only the location and pydantic's generic message: never the rejected input itself.
    details = []
    for err in exc.errors()[:20]:
        loc = ".".join(str(part) for part in err.get("loc", ()) if part != "body")
        details.append({"field": loc, "problem": str(err.get("msg", "invalid"))[:200]})
    return details


def validation_code(errors: list[Any]) -> str:
    """INVALID_CHARACTERS when any field holds control characters, else VALIDATION_ERROR."""
    if any(err.get("type") == INVALID_CHARACTERS_ERROR for err in errors):
        return "INVALID_CHARACTERS"
    return "VALIDATION_ERROR"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every error into the wrapper, once."""

    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        headers = {"Retry-After": "1"} if exc.status_code == 503 else None
        if exc.status_code == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return error_response(exc.status_code, exc.code, exc.public_message, exc.data, headers)

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        message = {
            404: "Not found.",
            405: "Method not allowed.",
            408: "The request body was not received in time.",
            413: PayloadTooLarge.message,
        }.get(exc.status_code, "The request could not be processed.")
        return error_response(exc.status_code, code, message, headers=exc.headers)

    async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        code = validation_code(list(exc.errors()))
        return error_response(422, code, "The request is invalid.", _validation_details(exc))

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(500, "INTERNAL_ERROR", "An internal error occurred.")

    async def on_database_error(request: Request, exc: Exception) -> JSONResponse:
        # Registered for SQLAlchemy's errors, not as part of the catch-all: Starlette re-raises what
        # reaches the catch-all (a traceback per request), while an outage is expected, not a bug.
        if not database_outage(exc):
            return await on_unexpected(request, exc)
        # The class only: the exception text holds the statement and its parameters.
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, type(exc).__name__)
        return await on_api_error(request, DatabaseUnavailable())

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(sa_exc.SQLAlchemyError, on_database_error)
    app.add_exception_handler(Exception, on_unexpected)


class ReportNotAvailable(NotFound):
    """The run exists but has no released diagnosis report (still running, failed, or a short answer)."""

    code = "REPORT_NOT_AVAILABLE"
    message = "This run has no released diagnosis report."
