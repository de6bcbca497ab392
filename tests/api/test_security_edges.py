"""With tokens configured the API docs need one too; the static mount serves only the frontend's assets;
every response carries the security headers; the OpenAPI document declares its bearer scheme."""

from __future__ import annotations

import httpx
import pytest

from api.security_headers import HEADERS
from tests.api.conftest import MakeClient

TOKENS = "alice:alice-token-123"
ALICE = {"Authorization": "Bearer alice-token-123"}


async def test_docs_and_openapi_need_a_token_when_tokens_are_configured(make_client: MakeClient) -> None:
    async with make_client(api_tokens=TOKENS) as (_, client):
        for path in ("/openapi.json", "/docs"):
            refused = await client.get(path)
            assert refused.status_code == 401, path
            assert refused.json()["code"] == "AUTH_REQUIRED"
            assert refused.headers["www-authenticate"] == "Bearer"
            assert (
                await client.get(path, headers={"Authorization": "Bearer wrong-token-1"})
            ).status_code == 401
            assert (await client.get(path, headers=ALICE)).status_code == 200, path
        for path in ("/redoc", "/docs/oauth2-redirect"):
            assert (await client.get(path, headers=ALICE)).status_code == 404
        assert (await client.get("/healthz")).status_code == 200  # probes stay open
        assert (await client.get("/")).status_code == 200  # the page asks for the token itself


async def test_docs_and_openapi_are_open_without_tokens(client: httpx.AsyncClient) -> None:
    assert (await client.get("/openapi.json")).status_code == 200
    docs = await client.get("/docs")
    assert docs.status_code == 200 and "swagger-ui" in docs.text
    # Swagger UI's own page: its CDN bundle and exactly its inline start-up script, by hash.
    policy = docs.headers["content-security-policy"]
    assert "'sha256-" in policy and "'unsafe-inline'" not in policy


async def test_openapi_declares_the_bearer_scheme_on_every_api_operation(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for path, operations in document["paths"].items():
        for operation in operations.values():
            expected: list[dict[str, list[str]]] | None = (
                [{"bearer": []}] if path.startswith("/api/") else None
            )
            assert operation.get("security") == expected, path


@pytest.mark.parametrize(
    "path", ["/__init__.py", "/__pycache__/", "/frontend/__init__.py", "/.hidden.js", "/x.py"]
)
async def test_static_mount_serves_no_python_or_hidden_file(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/", "text/html"),
        ("/index.html", "text/html"),
        ("/trace.html", "text/html"),
        ("/aiops.html", "text/html"),
        ("/api.js", "javascript"),
        ("/style.css", "text/css"),
    ],
)
async def test_frontend_assets_are_served(client: httpx.AsyncClient, path: str, kind: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200 and kind in response.headers["content-type"]


@pytest.mark.parametrize("path", ["/", "/trace.html", "/api.js", "/healthz", "/api/feedback", "/nowhere"])
async def test_every_response_carries_the_security_headers(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    for name, value in HEADERS.items():
        assert response.headers[name] == value, (path, name)
    policy = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy and "script-src 'self'" in policy


async def test_frontend_pages_have_no_inline_script_or_style(client: httpx.AsyncClient) -> None:
    for page in ("/", "/trace.html", "/aiops.html"):
        html = (await client.get(page)).text
        assert "<style" not in html and "style=" not in html
        assert html.count("<script") == html.count('<script type="module" src=')
