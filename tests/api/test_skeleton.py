"""The app skeleton: health, readiness, and the error wrapper on every failure."""

from __future__ import annotations

import httpx


async def test_healthz_answers_ok(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"code": "OK", "message": "ok", "data": {"status": "ok"}}


async def test_readyz_reports_each_dependency(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    checks = response.json()["data"]["checks"]
    assert checks["database"]["status"] == "ok"
    assert checks["session_context"] == {"status": "ok", "detail": "ok", "backend": "in-process"}


async def test_unknown_api_route_is_a_wrapped_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json() == {"code": "NOT_FOUND", "message": "Not found.", "data": None}


async def test_wrong_method_is_a_wrapped_405(client: httpx.AsyncClient) -> None:
    response = await client.post("/healthz")
    assert response.status_code == 405
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"


async def test_oversize_body_is_413_before_any_handler(client: httpx.AsyncClient) -> None:
    response = await client.post("/healthz", content=b"x" * 70_000)
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"


async def test_openapi_document_is_served(client: httpx.AsyncClient) -> None:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    assert "/readyz" in response.json()["paths"]


async def test_openapi_declares_the_error_wrapper_not_fastapis_detail(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    assert "HTTPValidationError" not in document["components"]["schemas"]
    chat = document["paths"]["/api/chat"]["post"]["responses"]
    for status in ("401", "413", "422", "503"):
        assert chat[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"
        }
    invalid = await client.post("/api/chat", json={"query": ""})
    assert set(invalid.json()) == set(document["components"]["schemas"]["ErrorBody"]["required"])


async def test_openapi_describes_every_json_success_body_in_camel_case(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    json_bodies = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            success = operation["responses"].get("200") or operation["responses"]["202"]  # 202: the webhook
            content = success.get("content", {})
            if "application/json" not in content:
                continue  # the two SSE streams and the Prometheus text
            json_bodies += 1
            ref = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
            assert schemas[ref]["required"] == ["code", "message", "data"], (method, path)
    assert json_bodies == 7  # healthz, readyz, runs, trace, feedback, investigations, alertmanager webhook
    run = schemas["RunSummaryBody"]
    assert {"runId", "sessionId", "createdAt", "toolCallCount"} <= set(run["properties"])
    assert run["additionalProperties"] is False
    assert not [name for name in run["properties"] if "_" in name]
