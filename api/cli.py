"""`superbiz`: serve, migrate, and the operator commands; thin, it reuses the composition root."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from api.settings import Settings


def load_settings() -> Settings:
    """Settings from the environment, or exit with a message naming each bad variable."""
    try:
        return Settings()
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            variable = "SUPERBIZ_" + "__".join(str(p) for p in err["loc"]).upper()
            lines.append(f"  {variable}: {err['msg']}")
        sys.stderr.write("superbiz: invalid configuration\n" + "\n".join(lines) + "\n")
        raise SystemExit(2) from None


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from api.app import create_app
    from api.logs import configure_logging

    settings = load_settings()
    configure_logging(settings.log_level)
    host = args.host or settings.host
    port = args.port or settings.port
    if settings.api_tokens is None:
        exposed = host not in ("127.0.0.1", "localhost", "::1")
        warning = " WARNING: reachable from other hosts without authentication" if exposed else ""
        print(f"superbiz: no SUPERBIZ_API_TOKENS: unauthenticated, listening on {host}:{port}.{warning}")
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=settings.log_level.lower(),
        log_config=None,  # keep our JSON logging
        timeout_graceful_shutdown=10,
        # Named, not "auto": a missing package fails the start instead of silently costing ~25% more CPU.
        loop="uvloop",
        http="httptools",
    )
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from persistence.db import current_revision, upgrade_head

    settings = load_settings()
    url = settings.database_url.get_secret_value()
    upgrade_head(url)
    print(f"superbiz: database at revision {current_revision(url)}")
    return 0


def _evidence(args: argparse.Namespace) -> int:
    import httpx

    from api.backends import build_sources
    from api.composition import build_toolbox, tool_limits
    from tools.cli import run_evidence_command

    settings = load_settings()
    if args.world:
        settings = settings.model_copy(update={"world_dir": Path(args.world)})
    try:
        tool_args = json.loads(args.args)
    except json.JSONDecodeError:
        tool_args = None
    if not isinstance(tool_args, dict):
        sys.stderr.write("superbiz: --args must be a JSON object\n")
        return 2

    async def call() -> str:
        async with httpx.AsyncClient() as http:
            sources = build_sources(settings, http, cases=None)
            toolbox = build_toolbox(sources, tool_limits(settings))
            return await run_evidence_command(toolbox, args.tool, tool_args)

    print(asyncio.run(call()))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from api.demo import run_demo

    try:
        return run_demo(args.url.rstrip("/"), token=args.token)
    except httpx_errors() as error:
        sys.stderr.write(
            f"superbiz demo: the server at {args.url} did not answer as expected ({type(error).__name__})\n"
        )
        return 1


def httpx_errors() -> tuple[type[Exception], ...]:
    import httpx

    return (httpx.HTTPError, KeyError, ValueError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="superbiz", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the API and the frontend")
    serve.add_argument("--host", help="overrides SUPERBIZ_HOST")
    serve.add_argument("--port", type=int, help="overrides SUPERBIZ_PORT")
    serve.set_defaults(handler=_serve)

    migrate = commands.add_parser("migrate", help="upgrade the database to the latest revision")
    migrate.set_defaults(handler=_migrate)

    evidence = commands.add_parser("evidence", help="call one evidence tool and print its result")
    evidence.add_argument("--world", help="a world directory (default: the bundled demo world)")
    evidence.add_argument("--tool", required=True, help="e.g. list_alerts, query_logs, query_mysql")
    evidence.add_argument("--args", default="{}", help='tool arguments as JSON, e.g. {"service":"x"}')
    evidence.set_defaults(handler=_evidence)

    demo = commands.add_parser("demo", help="drive a running server: two chat turns, AIOps, traces")
    demo.add_argument("--url", default="http://127.0.0.1:8000", help="the running server")
    demo.add_argument("--token", help="bearer token, when the server requires one")
    demo.set_defaults(handler=_demo)

    from api.ask import add_ask_command
    from api.evaluation.cli import add_eval_commands

    add_ask_command(commands)
    add_eval_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
