"""The one settings model: every environment variable the service reads, with validated defaults.

Only this module reads the environment. Every limit is positive; a bad value stops start-up with a
message that names the variable (pydantic-settings reports the field path, e.g. `chat.max_workers`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.context import GraphBudgets
from tools.identity import IdentityLabels
from tools.limits import ToolLimits
from tools.logfiles.client import DEFAULT_SCAN_BYTES
from tools.logfiles.journal import DEFAULT_SCAN_ENTRIES

PositiveInt = Annotated[int, Field(gt=0)]
PositiveFloat = Annotated[float, Field(gt=0)]

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./var/superbiz.db"
# The tool bounds and run budgets are defined once, as the plain dataclasses tools and graph read;
# the blocks below take their defaults from them (tests/unit/api/test_settings.py guards the mapping).
_TOOL = ToolLimits()
_BUDGETS = GraphBudgets()


class DatabaseSettings(BaseModel):
    """Connection pool and statement bounds of the application database."""

    pool_size: PositiveInt = 10
    max_overflow: PositiveInt = 10
    pool_timeout_s: PositiveFloat = 5.0
    # Every sweep interval a worker records a heartbeat for its live runs; a RUNNING run without one
    # for this long has lost its worker and is swept as FAILED/INTERRUPTED.
    orphan_after_s: PositiveFloat = 180.0
    sweep_interval_s: PositiveFloat = 30.0


class RedisSettings(BaseModel):
    """Session-context store bounds (Redis or the in-process default)."""

    socket_timeout_s: PositiveFloat = 2.0
    context_ttl_s: PositiveInt = 86_400
    max_turns: PositiveInt = 10
    max_turn_bytes: PositiveInt = 8_192
    max_history_bytes: PositiveInt = 32_768
    max_sessions: PositiveInt = 10_000


class ModelSettings(BaseModel):
    """OpenAI-compatible model; unset base URL or name means the rule-based analyst runs every step."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    name: str | None = None
    timeout_s: PositiveFloat = 30.0
    max_retries: Annotated[int, Field(ge=0, le=3)] = 1
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    max_concurrent_calls: PositiveInt = 8
    max_output_tokens: PositiveInt = 2_000


class BackendSettings(BaseModel):
    """Bounds of every evidence tool call (defaults: `tools.limits.ToolLimits`) and the SQL datasources."""

    tool_timeout_s: PositiveFloat = _TOOL.tool_timeout_s
    max_result_bytes: PositiveInt = _TOOL.max_result_bytes
    # The raw HTTP body cap of Prometheus, Alertmanager and Loki calls (its own setting: it is no
    # longer derived from max_result_bytes).
    max_raw_response_bytes: PositiveInt = _TOOL.max_raw_response_bytes
    max_summary_chars: PositiveInt = _TOOL.max_summary_chars
    max_rows: PositiveInt = _TOOL.max_rows
    max_series: PositiveInt = _TOOL.max_series
    max_log_lines: PositiveInt = _TOOL.max_log_lines
    max_alerts: PositiveInt = _TOOL.max_alerts
    max_discovery_items: PositiveInt = _TOOL.max_discovery_items
    max_promql_chars: PositiveInt = _TOOL.max_promql_chars
    max_range_minutes: PositiveInt = _TOOL.max_range_minutes
    default_window_minutes: PositiveInt = _TOOL.default_window_minutes
    min_step_seconds: PositiveInt = _TOOL.min_step_seconds
    max_points_per_series: PositiveInt = _TOOL.max_points_per_series
    max_sql_chars: PositiveInt = _TOOL.max_sql_chars
    sql_statement_timeout_ms: PositiveInt = _TOOL.sql_statement_timeout_ms
    cache_ttl_s: PositiveFloat = _TOOL.cache_ttl_s
    cache_capacity: PositiveInt = _TOOL.cache_capacity
    run_evidence_budget_bytes: PositiveInt = _TOOL.run_evidence_budget_bytes
    # name -> SQLAlchemy-style URL of a read-only datasource, e.g.
    # {"orders": "mysql://ro:pw@127.0.0.1/orders"}; unknown names fail closed. Database introspection
    # (inspect_database) reads other sessions only with pg_monitor (PostgreSQL) / PROCESS (MariaDB, MySQL).
    sql_datasources: dict[str, SecretStr] = Field(default_factory=dict)
    # Start-up refuses a datasource whose role can write, create, read server files or signal
    # backends; true (labs only) serves it anyway, with a loud warning at start-up.
    sql_allow_privileged_roles: bool = False
    # Pinned with SET LOCAL on every PostgreSQL datasource transaction (temp_file_limit only where
    # the role may set it: superuser, or GRANT SET ON PARAMETER on PostgreSQL 15+).
    sql_work_mem_kb: PositiveInt = 8_192
    sql_temp_file_limit_kb: PositiveInt = 262_144
    sql_lock_timeout_ms: PositiveInt = 2_000
    # Logs without Loki (tools/logfiles; Loki serves logs instead when SUPERBIZ_LOKI_URL is set):
    # identity -> glob (or list of globs) of its log files, read from their ends with their
    # rotations, e.g. {"postgres": "/var/log/postgresql/*.log", "checkout": "/srv/checkout/*.jsonl"}.
    log_files: dict[str, str | list[str]] = Field(default_factory=dict)
    # The systemd journal through journalctl (units are identities), or a journal file/directory.
    log_journal: bool = False
    log_journal_path: Path | None = None
    # Bytes one log query may read across the files; journal entries one query may scan.
    log_scan_bytes: PositiveInt = DEFAULT_SCAN_BYTES
    log_scan_entries: PositiveInt = DEFAULT_SCAN_ENTRIES
    # signal -> PromQL template; `{service}` and `{window}` are substituted.
    metric_templates: dict[str, str] = Field(default_factory=lambda: dict(_TOOL.metric_templates))
    # Labels that name a system, in priority order (service, app, job, namespace + workload,
    # instance, ...), and resource labels that qualify it (mountpoint, datname, ...): `tools.identity`.
    # A JSON list in the environment: SUPERBIZ_BACKENDS__IDENTITY_LABELS='["service","job","instance"]'.
    identity_labels: Annotated[tuple[str, ...], Field(min_length=1)] = _TOOL.identity_labels
    identity_resource_labels: tuple[str, ...] = _TOOL.identity_resource_labels
    # Scrape jobs of the monitoring stack itself, never suspects unless a question names them:
    # SUPERBIZ_BACKENDS__MONITORING_JOBS='["prometheus","alertmanager","pushgateway","grafana"]'.
    monitoring_jobs: tuple[str, ...] = _TOOL.monitoring_jobs

    @field_validator("identity_labels", "identity_resource_labels")
    @classmethod
    def _label_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        IdentityLabels(labels=value)  # raises ValueError naming the bad label
        return value


class ChatLimits(BaseModel):
    """Run budgets (defaults: `graph.context.GraphBudgets`), timeouts and pool sizes of chat and AIOps."""

    max_workers: PositiveInt = 16
    max_query_chars: PositiveInt = 4_000
    max_body_bytes: PositiveInt = 65_536
    # The whole request body must arrive within this (408 otherwise): a half-sent body held a
    # connection and a handler forever. 64 KB in 10 s is ~6.5 KB/s, far below any real client.
    body_read_timeout_s: PositiveFloat = 10.0
    run_deadline_s: PositiveFloat = _BUDGETS.deadline_s
    node_timeout_s: PositiveFloat = 60.0
    max_model_calls: PositiveInt = _BUDGETS.max_model_calls
    max_tool_calls: PositiveInt = _BUDGETS.max_tool_calls
    max_tokens: PositiveInt = _BUDGETS.max_tokens
    max_repairs: PositiveInt = _BUDGETS.max_repairs
    recursion_limit: PositiveInt = 60
    max_status_events: PositiveInt = 64
    sse_send_timeout_s: PositiveFloat = 10.0
    sse_ping_s: PositiveFloat = 15.0
    cancel_grace_s: PositiveFloat = 5.0
    # On SIGTERM an open stream has this long to send failure SHUTDOWN + done before it is cut;
    # below `superbiz serve`'s 10 s graceful shutdown, which also covers the runs' terminal writes.
    shutdown_grace_s: PositiveFloat = 3.0
    max_trace_bytes: PositiveInt = 65_536
    max_answer_bytes: PositiveInt = 262_144
    max_aiops_groups: PositiveInt = 10


class AlertWebhookSettings(BaseModel):
    """`POST /api/alertmanager/webhook` (`api.alert_webhook`): its own token, the principal its runs
    belong to, its bounds, and the optional outgoing webhook the finished report is posted to."""

    token: SecretStr | None = None  # unset: open only when SUPERBIZ_API_TOKENS is unset too
    principal: str = Field(default="alertmanager", min_length=1, max_length=128)
    max_in_flight: PositiveInt = 4  # webhook runs at once; beyond it 503 WEBHOOK_QUEUE_FULL
    dedupe_window_s: PositiveFloat = 300.0  # the same group key and firing alerts again: no new run
    max_alerts: PositiveInt = 500  # alerts in one notification (Alertmanager's own max_alerts)
    notify_url: SecretStr | None = None  # Slack-compatible incoming webhook: {"text": markdown}
    notify_attempts: Annotated[int, Field(ge=1, le=5)] = 3
    notify_timeout_s: PositiveFloat = 5.0


class Settings(BaseSettings):
    """Everything the service reads from `SUPERBIZ_*` environment variables."""

    model_config = SettingsConfigDict(env_prefix="SUPERBIZ_", env_nested_delimiter="__", extra="ignore")

    host: str = "127.0.0.1"
    port: Annotated[int, Field(gt=0, lt=65_536)] = 8000
    database_url: SecretStr = SecretStr(DEFAULT_DATABASE_URL)
    redis_url: SecretStr | None = None
    world_dir: Path | None = None
    prometheus_url: str | None = None
    alertmanager_url: str | None = None
    loki_url: str | None = None
    knowledge_dir: Path | None = None
    api_tokens: SecretStr | None = None
    log_level: str = "INFO"

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    model: ModelSettings = Field(default_factory=ModelSettings)
    backends: BackendSettings = Field(default_factory=BackendSettings)
    chat: ChatLimits = Field(default_factory=ChatLimits)
    alert_webhook: AlertWebhookSettings = Field(default_factory=AlertWebhookSettings)

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR")
        return level

    @property
    def embedded_database(self) -> bool:
        return self.database_url.get_secret_value().startswith("sqlite")
