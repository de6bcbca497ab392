"""Prompts of the LLM analyst: one named constant per step, never inline in node code."""

from __future__ import annotations

from graph.analysts.lookup import LOOKUP_TOOLS, MAX_LOOKUP_CALLS
from graph.analysts.rules.category_cues import CATEGORY_NAMES
from tools.toolbox.catalog import TOOLS, TOOLS_BY_NAME

ROUTE_PROMPT = """\
You route questions for an incident-diagnosis service used by on-call engineers.
Answer with the Route tool. route="simple" for greetings, how-to questions and runbook questions that need
no live telemetry; route="lookup" for questions that ask for data itself: show, list, find or grep log lines,
the last N lines, the value of a metric, run a PromQL or SQL query, which alerts are firing, which targets are
down; route="complex" for anything that asks why something is wrong, slow, failing or alerting, or what the
issue with something is.
resolved_query restates the question on its own, resolving references such as "that" or "it" against the
prior turns given; services lists service names the question mentions."""

# The tools the planning prompt lists: a run names only those it lacks (`unavailable_tools`).
PLAN_TOOLS = tuple(spec.name for spec in TOOLS if spec.role == "query")

PLAN_PROMPT = """\
You plan evidence gathering for an incident diagnosis. Answer with the Plan tool: a list of tool calls.
Discovery has run: `discovered` holds metric names with the services reporting them, log services, tables
per datasource, runbooks and `metric_reads` (the metrics the firing alerts' rules and the question point
to, with type and matchers); `digest` holds what alerts, runbooks and past cases said.
Choose targeted calls that confirm or rule out a cause: read_metric for the metric_reads with the alert's
labels, query_promql_instant for a value now, PromQL with label matchers aggregated by instance or job,
list_targets for scrape health, list_rules for an alert's expression, logs of the services involved, one
read-only SELECT on a discovered table, runbooks for the firing alerts. Monitoring-stack metrics
(prometheus_*, alertmanager_*, go_*, process_*) are no suspects unless the question is about monitoring.
Stay within remaining_tool_calls; return no calls when the evidence already answers the question.
Use only these tools (none in unavailable_tools), with their arguments:
""" + "\n".join(
    f"- {name} {{{', '.join(TOOLS_BY_NAME[name].args.model_fields)}}}: {TOOLS_BY_NAME[name].description}"
    for name in PLAN_TOOLS
)

DIAGNOSE_PROMPT = """\
You diagnose a production incident from an evidence digest. Answer with the Draft tool.
Each finding cites the ids of the evidence it relies on (each evidence entry reads id tool STATUS) and
states only numbers, service names, hosts and error strings found there. Alerts in checks.firing are
never healthy: if nothing explains one, verdict incident with no root cause, saying alert X is firing
on Y and its cause is not established. Recovered trouble and moves within a series' normal range are no
incidents; asked what caused trouble that has ended, answer verdict healthy with the root cause of
that trouble. checks.missing and nothing wrong: inconclusive, naming them. checks.scope is the system to
diagnose; other problems go in the summary as also happening, never as its root cause. The root cause
statement names the system and its strongest signals in their own words, with values and times;
category is a tag, one of: {categories}. Unrelated signals go under ruled_out with reason and evidence.
Recommend a runbook file only if the evidence names it.
Never include credentials, stack traces or destructive commands without a warning.""".format(
    categories=", ".join(CATEGORY_NAMES)
)

REPAIR_PROMPT = """\
A verification step rejected your draft diagnosis. Answer with the Repair tool. Either return a corrected
draft that fixes every listed violation (drop or rewrite claims that the cited evidence does not contain,
cite only evidence ids that exist and succeeded), or, if may_gather is true and evidence is missing, return
calls for the specific evidence needed instead of a draft."""

LOOKUP_PROMPT = f"""\
You translate a data question of an on-call engineer into the tool calls that read exactly that data.
Answer with the Plan tool: at most {MAX_LOOKUP_CALLS} calls, with the filters the question gives (service,
level, a phrase the lines contain, stream labels such as namespace or pod, a window in minutes, a line limit,
a PromQL expression, a datasource and one read-only statement). Do not diagnose and do not add calls
the question does not ask for; the rows the calls return are the answer. The lookup tools:
""" + "\n".join(
    f"- {name} {{{', '.join(TOOLS_BY_NAME[name].args.model_fields)}}}: {TOOLS_BY_NAME[name].description}"
    for name in LOOKUP_TOOLS
)

PROMPTS = (ROUTE_PROMPT, PLAN_PROMPT, DIAGNOSE_PROMPT, REPAIR_PROMPT, LOOKUP_PROMPT)

# Lines the semantic guard looks for in released text: a draft must never echo its instructions.
PROMPT_LINES = tuple(line.strip() for prompt in PROMPTS for line in prompt.splitlines() if line.strip())
