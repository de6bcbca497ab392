"""Schemathesis against the app's own OpenAPI document: no 5xx, and every response fits its schema.

The real app (lifespan, SQLite, the small hostile world) is served in-process through schemathesis's
ASGI transport, which runs the lifespan on its own event-loop thread. Every operation of the document
is fuzzed in both generation modes (valid and invalid input) with a bounded, derandomized example
count; the list of operations is pinned so a new route cannot escape unfuzzed. The two SSE routes are
fuzzed like the others: the transport reads their stream (up to `max_stream_events` events, more than
a run sends), so valid input runs real diagnoses and invalid input exercises their 4xx paths. A stateful
run follows the document's links from the streams to the runs, trace and feedback of the runs they
started; success bodies are checked against their declared schemas (unknown keys refused).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.core.transport import Response
from schemathesis.python.asgi import get_client, shutdown_lifespans
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import response_schema_conformance

from api.app import create_app
from api.settings import Settings

HOSTILE_WORLD = Path(__file__).resolve().parents[1] / "data" / "hostile"
MAX_EXAMPLES = 25
OPERATIONS = [
    "GET /healthz",
    "GET /readyz",
    "GET /metrics",
    "POST /api/chat",
    "POST /api/ai_ops",
    "GET /api/chat/session/{sessionId}/runs",
    "GET /api/diagnosis/{sessionId}/trace",
    "GET /api/diagnosis/{sessionId}/report.md",
    "POST /api/feedback",
    "POST /api/alertmanager/webhook",
    "GET /api/investigations",
]
# An operation without parameters or body has no invalid input: only valid requests are possible.
WITHOUT_INPUT = {"GET /healthz", "GET /readyz", "GET /metrics"}
FUZZ_RUNS = [(label, GenerationMode.POSITIVE) for label in OPERATIONS] + [
    (label, GenerationMode.NEGATIVE) for label in OPERATIONS if label not in WITHOUT_INPUT
]
STREAMS = {"POST /api/chat", "POST /api/ai_ops"}
# Runs started by valid chat and AIOps examples: far above what 25 examples per mode can start at once.
MAX_WORKERS = 64


@pytest.fixture(scope="module")
def app() -> Iterator[FastAPI]:
    with tempfile.TemporaryDirectory() as root:
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{Path(root) / 'fuzz.db'}",
            world_dir=HOSTILE_WORLD,
            chat={"max_workers": MAX_WORKERS},
        )
        application = create_app(settings)
        try:
            yield application
        finally:
            shutdown_lifespans()  # the transport keeps the lifespan running until told


@pytest.fixture(scope="module")
def schema(app: FastAPI) -> BaseSchema:
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def test_every_operation_of_the_document_is_fuzzed(schema: BaseSchema) -> None:
    results = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results)  # every operation of the document loads
    labels = [result.ok().label for result in results if isinstance(result, Ok)]
    assert sorted(labels) == sorted(OPERATIONS)


@pytest.mark.parametrize(("label", "mode"), FUZZ_RUNS, ids=[f"{label}-{mode}" for label, mode in FUZZ_RUNS])
def test_operation_never_answers_5xx_or_off_schema(
    schema: BaseSchema, label: str, mode: GenerationMode
) -> None:
    method, path = label.split(" ", 1)
    operation = schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: schemathesis.Case[Any]) -> None:
        response = case.call_and_validate(checks=[not_a_server_error, response_schema_conformance])
        statuses.append(response.status_code)
        if label == "POST /api/chat" and response.status_code == 200:
            last_frame = response.text.replace("\r\n", "\n").rstrip().rsplit("\n\n", 1)[-1]
            assert last_frame.startswith("event: done\n"), last_frame  # the stream was read to its end

    statuses: list[int] = []
    fuzz()
    if mode is GenerationMode.POSITIVE and label in STREAMS:
        assert 200 in statuses  # valid input really ran diagnoses, not only 4xx paths


@pytest.mark.parametrize("body", [b"\x80\x81", b"[" * 30_000 + b"]" * 30_000], ids=["not-utf8", "deep"])
@pytest.mark.parametrize("path", ["/api/chat", "/api/ai_ops", "/api/feedback"])
def test_undecodable_json_bodies_are_4xx(schema: BaseSchema, path: str, body: bytes) -> None:
    """Found by this suite: /api/ai_ops answered 500 to both (UnicodeDecodeError, RecursionError)."""
    with get_client(schema.app) as client:
        response = client.post(path, data=body, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500
    assert response.json()["code"] in {"BAD_REQUEST", "VALIDATION_ERROR"}


# Stateful: scenarios follow the document's OpenAPI links (chat/AIOps → runs → trace → feedback), so
# trace and feedback are reached with the ids of runs that really ran, not only with random ids (404).
STATEFUL_SCENARIOS = 60
STATEFUL_STEPS = 6
REACHED_THROUGH_LINKS = ["GET /api/diagnosis/{sessionId}/trace", "POST /api/feedback"]


def test_stateful_links_reach_trace_and_feedback_of_real_runs(schema: BaseSchema) -> None:
    answered: Counter[tuple[str, int]] = Counter()

    class Scenarios(schema.as_state_machine()):  # type: ignore[misc]
        def after_call(self, response: Response, case: schemathesis.Case[Any]) -> None:
            answered[(case.operation.label, response.status_code)] += 1

        def validate_response(
            self, response: Response, case: schemathesis.Case[Any], *args: Any, **kwargs: Any
        ) -> None:
            case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

    Scenarios.run(
        settings=settings(
            max_examples=STATEFUL_SCENARIOS,
            stateful_step_count=STATEFUL_STEPS,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    for label in REACHED_THROUGH_LINKS:
        assert answered[(label, 200)] > 0, (label, sorted(answered.items()))
