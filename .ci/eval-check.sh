#!/usr/bin/env bash
# Runs the evaluation (rule-based analyst) on the committed worlds and on issue 22's development set
# (tests/data/devset: worlds in vendors' own styles, data questions), and diffs each against its
# committed baseline; exits non-zero on any regression. An intentional change to a baseline is committed
# with the change that causes it:
#   superbiz eval run --out tests/data/eval/baseline.json
#   superbiz eval run --worlds tests/data/devset --out tests/data/eval/devset_baseline.json
set -euo pipefail
cd "$(dirname "$0")/.."
SUPERBIZ="${SUPERBIZ:-.venv/bin/superbiz}"
result="$(mktemp -t superbiz-eval.XXXXXX.json)"
devset="$(mktemp -t superbiz-devset.XXXXXX.json)"
trap 'rm -f "$result" "$devset"' EXIT
"$SUPERBIZ" eval run --analyst rules --out "$result"
"$SUPERBIZ" eval diff tests/data/eval/baseline.json "$result"
"$SUPERBIZ" eval run --analyst rules --worlds tests/data/devset --out "$devset"
"$SUPERBIZ" eval diff tests/data/eval/devset_baseline.json "$devset"
