"""The frontend's diagram (frontend/diagram.js) draws exactly the nodes and edges of `build_graph()`.

diagram.js lays the graph out by hand; this test reads its NODES, EDGES and BUDGET_EXITS tables and
compares them with the compiled graph, so a node or edge added to graph/build.py without being drawn
(or a drawn edge the graph no longer has) fails here rather than on the trace page. The graph's nodes
are also the registered `NodeId`s, and each reports a status code when it starts.
"""

from __future__ import annotations

import re
from pathlib import Path

from langgraph.graph import END, START

from graph.build import build_graph
from graph.nodes import NodeId
from graph.recorder import NODE_STATUS

DIAGRAM = Path(__file__).resolve().parents[3] / "frontend" / "diagram.js"


def _table(source: str, name: str, opening: str, closing: str) -> str:
    """The literal of `const <name> = <opening> ... <closing>;` in the script."""
    match = re.search(rf"^const {name} = \{opening}\n(.*?)^\{closing};$", source, re.S | re.M)
    assert match, f"diagram.js has no {name} table"
    return match.group(1)


def _pairs(table: str) -> list[tuple[str, str]]:
    return re.findall(r'^\s*\["(\w+)", "(\w+)"', table, re.M)


def _drawn() -> tuple[list[str], list[tuple[str, str]]]:
    source = DIAGRAM.read_text(encoding="utf-8")
    nodes = re.findall(r"^\s*(\w+): \[", _table(source, "NODES", "{", "}"), re.M)
    edges = _pairs(_table(source, "EDGES", "[", "]")) + _pairs(_table(source, "BUDGET_EXITS", "[", "]"))
    return nodes, edges


def _built() -> tuple[set[str], set[tuple[str, str]]]:
    graph = build_graph().get_graph()
    ends = {START, END}
    nodes = {str(node) for node in graph.nodes} - ends
    edges = {(str(e.source), str(e.target)) for e in graph.edges if not {e.source, e.target} & ends}
    return nodes, edges


def test_diagram_draws_every_node_of_the_graph_once() -> None:
    drawn, _ = _drawn()
    built, _ = _built()
    assert len(drawn) == len(set(drawn))
    assert set(drawn) == built


def test_diagram_draws_every_edge_of_the_graph_once() -> None:
    _, drawn = _drawn()
    _, built = _built()
    assert len(drawn) == len(set(drawn))
    assert set(drawn) == built


def test_node_ids_are_the_graph_nodes() -> None:
    built, _ = _built()
    assert {node.value for node in NodeId} == built


def test_parser_reads_the_tables_it_compares() -> None:
    # Guards the test itself: a reformatted diagram.js must not make both sides empty.
    nodes, edges = _drawn()
    assert "planner" in nodes and ("executors", "planner") in edges and ("repair", "fallback") in edges


def test_every_node_reports_a_status_when_it_starts() -> None:
    assert set(NODE_STATUS) == set(NodeId)
