"""`superbiz ask "why is checkout slow?"`: one chat run against a running server, from a terminal.

Progress (the stream's status events) goes to stderr as it arrives; the released answer goes to
stdout, rendered for a terminal by `rich` (`--plain`: plain text), followed by the
trace link. `--json` prints the raw `content` (or `failure`) event data instead. The exit code says
how the run ended (`EXIT_CODES`), so scripts can branch on it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import urlencode

import httpx
from httpx_sse import SSEError, connect_sse
from rich.console import Console
from rich.markdown import Markdown

from graph.nodes.lookup.markdown import lookup_markdown
from graph.report_markdown import report_markdown

EXIT_SUCCESS = 0
EXIT_FAILED = 4  # the run failed, or the stream ended without its done event
EXIT_FALLBACK = 3  # the safe fallback was released: no verified diagnosis
EXIT_REFUSED = 6  # the server answered but refused the request (401, 404, 422, 503 ...)
EXIT_UNREACHABLE = 5  # no connection to the server (refused, DNS, timeout)
EXIT_CODES = {"SUCCESS": EXIT_SUCCESS, "FALLBACK": EXIT_FALLBACK, "FAILED": EXIT_FAILED}
TOKEN_VARIABLE = "SUPERBIZ_API_TOKEN"
SERVER_TOKENS_VARIABLE = "SUPERBIZ_API_TOKENS"  # the server's own `name:token,...`
# Server text shown on a terminal: no escape sequences (C0 but tab/newline, DEL, C1).
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_\[\]<>|#~])")


def token_from_environment(environ: dict[str, str] | None = None) -> str | None:
    """`SUPERBIZ_API_TOKEN`, else the token of `SUPERBIZ_API_TOKENS` when it names one principal only
    (a developer running the server and the client in one shell)."""
    env = os.environ if environ is None else environ
    token = env.get(TOKEN_VARIABLE, "").strip()
    if token:
        return token
    entries = [entry for entry in env.get(SERVER_TOKENS_VARIABLE, "").split(",") if entry.strip()]
    if len(entries) == 1:
        return entries[0].partition(":")[2].strip() or None
    return None


def safe_text(text: str) -> str:
    return _TERMINAL_UNSAFE.sub("", text)


@dataclass
class AskResult:
    """What one streamed chat run said: its ids, statuses, terminal events."""

    session_id: str | None = None
    run_id: str | None = None
    statuses: list[str] = field(default_factory=list)
    content: dict[str, Any] | None = None
    failure: dict[str, Any] | None = None
    outcome: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.outcome or "FAILED", EXIT_FAILED)


def stream_chat(
    client: httpx.Client, question: str, session_id: str | None, on_status: Callable[[str], None]
) -> AskResult:
    """POST /api/chat and read its frames to the end; `on_status` sees each status message."""
    body: dict[str, Any] = {"query": question} | ({"sessionId": session_id} if session_id else {})
    result = AskResult()
    with connect_sse(client, "POST", "/api/chat", json=body) as source:
        if source.response.is_error:
            source.response.read()  # the error body, for the code in the message
            source.response.raise_for_status()
        for frame in source.iter_sse():
            data = frame.json()
            if frame.event == "metadata":
                result.session_id, result.run_id = data.get("session_id"), data.get("run_id")
            elif frame.event == "status":
                result.statuses.append(str(data.get("code")))
                on_status(safe_text(str(data.get("message") or data.get("code"))))
            elif frame.event == "content":
                result.content = data
            elif frame.event == "failure":
                result.failure = data
            elif frame.event == "done":
                result.outcome = str(data.get("outcome"))
    return result


def trace_link(base_url: str, result: AskResult) -> str:
    query = urlencode({"sessionId": result.session_id or "", "runId": result.run_id or ""})
    return f"{base_url}/trace.html?{query}"


def plain_answer(content: dict[str, Any]) -> str:
    """The released answer as terminal text: a report's or a lookup's Markdown, a short answer's text
    and points, any other content type as indented JSON."""
    markdown = report_markdown(content) or lookup_markdown(content)
    if markdown is not None:
        return markdown
    payload = content.get("payload") or {}
    if content.get("content_type") == "answer" and isinstance(payload, dict):
        points = [f"- {point}" for point in payload.get("points", [])]
        sources = [f"  [{s.get('id')}] {s.get('title')}" for s in payload.get("sources", [])]
        return "\n".join(
            [str(payload.get("text", "")), *points, *(["Sources:", *sources] if sources else [])]
        )
    return json.dumps(payload, indent=2, ensure_ascii=False)


def _print_answer(content: dict[str, Any], out: TextIO, *, plain: bool) -> None:
    text = safe_text(plain_answer(content))
    if not plain:
        Console(file=out, highlight=False).print(Markdown(text))
        return
    # Plain text: the Markdown escapes only mattered to a Markdown renderer.
    out.write(_MARKDOWN_ESCAPE.sub(r"\1", text).rstrip() + "\n")


@dataclass(frozen=True, slots=True)
class AskOptions:
    url: str
    question: str
    session_id: str | None = None
    token: str | None = None
    as_json: bool = False
    plain: bool = False
    timeout_s: float = 180.0


def run_ask(options: AskOptions, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Ask once; print progress to `err`, the answer and trace link (or JSON) to `out`; the exit code."""
    base = options.url.rstrip("/")
    headers = {"Authorization": f"Bearer {options.token}"} if options.token else {}

    def progress(message: str) -> None:
        err.write(f"… {message}\n")
        err.flush()

    try:
        with httpx.Client(base_url=base, timeout=options.timeout_s, headers=headers) as client:
            result = stream_chat(client, options.question, options.session_id, progress)
    except httpx.HTTPStatusError as error:
        response = error.response
        try:
            code = response.json().get("code", "")
        except ValueError:
            code = ""
        err.write(f"superbiz ask: the server refused the request: HTTP {response.status_code} {code}\n")
        return EXIT_REFUSED
    except (httpx.ConnectError, httpx.ConnectTimeout) as error:
        err.write(f"superbiz ask: cannot connect to {base} ({type(error).__name__})\n")
        return EXIT_UNREACHABLE
    except (httpx.HTTPError, SSEError, ValueError) as error:
        err.write(f"superbiz ask: the stream from {base} broke off ({type(error).__name__})\n")
        return EXIT_FAILED
    if options.as_json:
        out.write(
            json.dumps(result.content or {"failure": result.failure}, ensure_ascii=False, indent=2) + "\n"
        )
    elif result.content is not None:
        _print_answer(result.content, out, plain=options.plain)
    else:
        failure = result.failure or {}
        out.write(
            f"No answer: {safe_text(str(failure.get('code')))}: {safe_text(str(failure.get('message')))}\n"
        )
    if result.run_id:
        link = trace_link(base, result)
        # The link goes with the answer; with --json stdout stays one JSON document.
        err.write(
            f"outcome: {result.outcome or 'none'}" + (f"; trace: {link}\n" if options.as_json else "\n")
        )
        if not options.as_json:
            out.write(f"\nTrace: {link}\n")
    return result.exit_code


def add_ask_command(commands: Any) -> None:
    """`superbiz ask QUESTION [--url --session --token --json --plain]` on the CLI's subparsers."""
    ask = commands.add_parser(
        "ask",
        help="ask a running server one question and print its report",
        description=__doc__,
        epilog=(
            f"exit codes: {EXIT_SUCCESS} SUCCESS, {EXIT_FALLBACK} FALLBACK, {EXIT_FAILED} FAILED, "
            f"{EXIT_UNREACHABLE} cannot connect, {EXIT_REFUSED} refused by the server (HTTP 4xx/5xx)"
        ),
    )
    ask.add_argument("question", help='e.g. "why is checkout slow?"')
    ask.add_argument("--url", default="http://127.0.0.1:8000", help="the running server")
    ask.add_argument("--session", help="continue this session (multi-turn)")
    ask.add_argument("--token", help=f"bearer token; default: ${TOKEN_VARIABLE}")
    ask.add_argument("--json", action="store_true", help="print the raw content payload as JSON")
    ask.add_argument("--plain", action="store_true", help="plain text instead of rich's terminal rendering")
    ask.set_defaults(handler=_ask)


def _ask(args: Any) -> int:
    return run_ask(
        AskOptions(
            url=args.url,
            question=args.question,
            session_id=args.session,
            token=args.token or token_from_environment(),
            as_json=args.json,
            plain=args.plain,
        )
    )
