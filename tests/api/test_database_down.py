"""Database down: every route that needs it answers 503 UNAVAILABLE naming the database (runs, trace
and feedback answered 500), with Retry-After and nothing internal in the body; the OpenAPI document
declares those 503s and /readyz's own."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from sqlalchemy.engine import make_url

from persistence.db import upgrade_head
from tests.api.conftest import MakeClient
from tests.conftest import require_service_url
from tests.support.postgres import fresh_database
from tests.support.sse import only, post_stream
from tests.support.tcp_proxy import TcpProxy

NOWHERE = "postgresql+psycopg://postgres@127.0.0.1:1/nowhere"


def _requests(session_id: str, run_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    return [
        ("POST", "/api/chat", {"sessionId": session_id, "query": "why is checkout slow?"}),
        ("POST", "/api/chat", {"query": "a new session"}),
        ("POST", "/api/ai_ops", {"sessionId": session_id}),
        ("GET", f"/api/chat/session/{session_id}/runs", None),
        ("GET", f"/api/diagnosis/{session_id}/trace?runId={run_id}", None),
        ("POST", "/api/feedback", {"sessionId": session_id, "runId": run_id, "useful": True}),
    ]


def _assert_database_unavailable(response: httpx.Response, path: str) -> None:
    assert response.status_code == 503, (path, response.status_code, response.text)
    assert response.headers["retry-after"] == "1"
    assert response.json() == {
        "code": "UNAVAILABLE",
        "message": "The database is unavailable; retry shortly.",
        "data": {"dependency": "database"},
    }


async def test_no_database_at_all_every_route_answers_503(make_client: MakeClient) -> None:
    async with make_client(database_url=NOWHERE, database={"pool_timeout_s": 1.0}) as (_, client):
        for method, path, body in _requests("never-stored", "run-never"):
            _assert_database_unavailable(await client.request(method, path, json=body), path)
        assert (await client.get("/readyz")).status_code == 503
        assert (await client.get("/healthz")).status_code == 200


@pytest.fixture
def database_url() -> Iterator[str]:
    with fresh_database(require_service_url("SUPERBIZ_TEST_PG_URL"), "superbiz_edges") as url:
        upgrade_head(url)
        yield url


@pytest.fixture
async def proxy(database_url: str) -> AsyncIterator[TcpProxy]:
    target = make_url(database_url)
    proxy = await TcpProxy(target.host or "127.0.0.1", target.port or 5432).start()
    try:
        yield proxy
    finally:
        await proxy.cut()


@pytest.mark.postgres
async def test_database_lost_after_real_runs_every_route_answers_503(
    make_client: MakeClient, database_url: str, proxy: TcpProxy
) -> None:
    through_proxy = make_url(database_url).set(host="127.0.0.1", port=proxy.port)
    async with make_client(
        database_url=through_proxy.render_as_string(hide_password=False), database={"pool_timeout_s": 1.0}
    ) as (_, client):
        frames = await post_stream(
            client, "/api/chat", {"sessionId": "db-1", "query": "why is checkout slow?"}
        )
        run_id = only(frames, "metadata")["run_id"]
        assert (await client.get("/api/diagnosis/db-1/trace", params={"runId": run_id})).status_code == 200
        await proxy.cut()  # open pooled connections are reset, new ones refused
        for method, path, body in _requests("db-1", run_id):
            _assert_database_unavailable(await client.request(method, path, json=body), path)
        ready = await client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["code"] == "NOT_READY"


async def test_openapi_declares_503_on_every_database_route_and_readyz(make_client: MakeClient) -> None:
    async with make_client() as (_, client):
        document = (await client.get("/openapi.json")).json()
    paths = document["paths"]
    for path, method in (
        ("/api/chat", "post"),
        ("/api/ai_ops", "post"),
        ("/api/chat/session/{sessionId}/runs", "get"),
        ("/api/diagnosis/{sessionId}/trace", "get"),
        ("/api/feedback", "post"),
        ("/readyz", "get"),
    ):
        declared = paths[path][method]["responses"]["503"]
        assert declared["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
