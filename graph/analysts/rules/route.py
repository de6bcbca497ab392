"""Rule-based routing: greetings and how-to/runbook questions take the short path; the rest is diagnosed.

Follow-ups ("and what about the other one?", "why did that start?") are resolved against prior turns.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.analysts.base import Route, RouteRequest
from graph.analysts.rules.lookup import follow_up_lookup, lookup_ask
from graph.analysts.rules.vocabulary import (
    DIAGNOSTIC,
    FOLLOW_UP,
    GREETING,
    HOW_TO,
    NAME_TOKEN,
    STOPWORDS,
    WHAT_ABOUT,
)


def route_question(request: RouteRequest) -> Route:
    """Route by intent; AIOps scans always get a full diagnosis."""
    query = request.query.strip()
    services = _named(query, request.services)
    resolved = query
    last = request.history[-1] if request.history else None
    if last is not None and FOLLOW_UP.search(query):
        resolved = f"{query} (follow-up to: {last.query})"
        about = WHAT_ABOUT.search(query)
        if about is None and last.root_cause_service:
            services.append(last.root_cause_service)
            resolved += f" [previous root cause: {last.root_cause_service}]"
    diagnostic = bool(DIAGNOSTIC.search(query)) or request.flow == "AI_OPS"
    if not diagnostic and GREETING.match(query) and len(query.split()) <= 6:
        return Route(route="simple", intent="greeting", resolved_query=resolved, services=services)
    # A lookup is the question's own query ("and for X?" after a lookup: the same one about X).
    asked = (follow_up_lookup(query, last.query) if last is not None else None) or query
    if request.flow != "AI_OPS" and (ask := lookup_ask(asked)) is not None:
        named = _unique([*_named(asked, request.services), *ask.services])
        return Route(route="lookup", intent="lookup", resolved_query=asked, services=named)
    if HOW_TO.search(query) and not _asks_why(query):
        return Route(route="simple", intent="how_to", resolved_query=resolved, services=services)
    return Route(route="complex", intent="diagnosis", resolved_query=resolved, services=_unique(services))


def confident_route(request: RouteRequest) -> Route | None:
    """The rule route when it needs no judgement, else None (a model may route better).

    Sure: a greeting, a data question whose grammar names what to read (`rules.lookup`), a question
    with a symptom word ("slow", "failing", ...) and an AIOps scan, when there is no follow-up
    reference to resolve against earlier turns. How-to questions, follow-ups and
    questions without a symptom word are left to the model.
    """
    follow_up = bool(request.history) and bool(FOLLOW_UP.search(request.query))
    if follow_up and follow_up_lookup(request.query, request.history[-1].query) is None:
        return None
    route = route_question(request)
    if route.intent == "greeting" or route.route == "lookup":
        return route
    sure = bool(DIAGNOSTIC.search(request.query)) or request.flow == "AI_OPS"
    return route if sure and route.route == "complex" else None


def question_terms(text: str) -> list[str]:
    """Lower-cased words of a question that could name a service, host or table."""
    return _unique(
        token.lower()
        for token in NAME_TOKEN.findall(text)
        if token.lower() not in STOPWORDS and len(token) >= 3
    )


def _named(query: str, explicit: Iterable[str]) -> list[str]:
    named = [name.lower() for name in explicit]
    if about := WHAT_ABOUT.search(query):
        named.append(about.group(1).lower())
    named += [t for t in question_terms(query) if "-" in t or "_" in t]
    return _unique(named)


def _asks_why(query: str) -> bool:
    lowered = query.lower()
    return lowered.startswith(("why", "what happened", "what is wrong", "what's wrong")) or (
        "root cause" in lowered
    )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
