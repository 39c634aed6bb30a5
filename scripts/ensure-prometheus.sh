#!/usr/bin/env sh
# Makes sure `prometheus` and `promtool` are on PATH (test/deploy/prometheus-e2e.test.ts starts its own Prometheus
# and checks the recording rules with promtool); installs Debian's prometheus package with apt-get when either is
# missing (scripts/apt-install.sh), without starting the Debian service. Runs in the shell (CI, dev machines).
set -eu
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  exit 0
fi
. "$(dirname "$0")/apt-install.sh"
apt_prepare ensure-prometheus "prometheus/promtool are missing" \
  "install Prometheus 2.40+ by hand (both binaries on PATH)" prometheus
# The package's maintainer scripts would start the Debian service (a Prometheus on :9090 scraping
# localhost); the tests start their own on a free port. A policy-rc.d that answers 101 ("action
# forbidden") keeps invoke-rc.d from starting it; it is removed again when it was ours.
POLICY=/usr/sbin/policy-rc.d
OURS=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  OURS=1
fi
cleanup() { if [ -n "$OURS" ]; then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT INT TERM
apt_install prometheus
# Without systemd or with policy-rc.d absent, stop anything the package started anyway.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  echo "ensure-prometheus: apt-get finished but prometheus or promtool is still missing from PATH" >&2
  exit 1
fi
