"""The composition root and the controller boundary (spec: one graph, a thin controller)."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from fastapi import FastAPI

from tests.support.app_state import services_of
from tools.base import EvidenceStatus
from tools.evidence_store import RunEvidence

ROUTES = Path(__file__).resolve().parents[2] / "api" / "routes"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_chat_controller_depends_only_on_protocol_and_application_collaborators() -> None:
    for route in ("chat.py", "aiops.py"):
        source = (ROUTES / route).read_text()
        imports = _imports(ROUTES / route)
        forbidden = [
            m
            for m in imports
            if m.split(".")[0]
            in {
                "graph",
                "tools",
                "persistence",
                "langchain_openai",
                "langchain_core",
                "langgraph",
                "concurrent",
            }
        ]
        assert forbidden == [], f"{route} reaches past the use case: {forbidden}"
        for construction in ("ThreadPoolExecutor", "ChatOpenAI(", "build_graph(", "Toolbox(", "RunStore("):
            assert construction not in source


def test_one_graph_and_one_model_boundary_serve_chat_and_aiops(app: FastAPI) -> None:
    services = services_of(app)
    assert services.chat._diagnoser is services.diagnosis
    assert services.aiops._diagnoser is services.diagnosis
    assert services.chat.lifecycle is services.aiops.lifecycle  # one owner of every run


async def test_sql_tool_fails_closed_for_the_application_database(app: FastAPI) -> None:
    toolbox = services_of(app).diagnosis.toolbox
    run = RunEvidence(budget_bytes=100_000)
    for name in ("superbiz", "app", "default", "main"):
        evidence = await toolbox.call("query_mysql", {"datasource": name, "statement": "SELECT 1"}, run)
        assert evidence.status is EvidenceStatus.REJECTED
        assert "chat_session" not in str(evidence.data)


def test_a_started_app_freezes_its_start_up_heap_and_collects_young_objects_less_often(app: FastAPI) -> None:
    # Both measured as event-loop pauses under load (see api.app._tune_collector).
    assert gc.get_freeze_count() > 10_000
    assert gc.get_threshold()[0] >= 10_000
