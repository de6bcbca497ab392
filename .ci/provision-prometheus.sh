#!/usr/bin/env bash
# Install Debian's Prometheus, promtool and Alertmanager for the contract tests, when missing.
# Idempotent: does nothing if every binary is already on PATH. Waits for a concurrent apt/dpkg run.
set -euo pipefail

needed=(prometheus promtool prometheus-alertmanager)
missing=()
for binary in "${needed[@]}"; do
  command -v "$binary" >/dev/null 2>&1 || missing+=("$binary")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "provision-prometheus: already installed ($(prometheus --version 2>&1 | head -n1))"
  exit 0
fi
echo "provision-prometheus: missing ${missing[*]}; installing"

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
apt_options=(-o DPkg::Lock::Timeout=600 -y -q)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get "${apt_options[@]}" update
# promtool ships in the prometheus package; the tests start their own servers on free ports.
"${as_root[@]}" apt-get "${apt_options[@]}" install --no-install-recommends \
  prometheus prometheus-alertmanager

for binary in "${needed[@]}"; do
  command -v "$binary" >/dev/null 2>&1 || { echo "provision-prometheus: $binary still missing" >&2; exit 1; }
done
echo "provision-prometheus: installed ($(prometheus --version 2>&1 | head -n1))"
