#!/usr/bin/env bash
# Runs the evaluation on the committed worlds (rule-based analyst) and diffs it against the committed
# baseline; exits non-zero on any regression. An intentional change to the baseline is committed with
# the change that causes it: `superbiz eval run --out tests/data/eval/baseline.json`.
set -euo pipefail
cd "$(dirname "$0")/.."
SUPERBIZ="${SUPERBIZ:-.venv/bin/superbiz}"
result="$(mktemp -t superbiz-eval.XXXXXX.json)"
trap 'rm -f "$result"' EXIT
"$SUPERBIZ" eval run --analyst rules --out "$result"
"$SUPERBIZ" eval diff tests/data/eval/baseline.json "$result"
