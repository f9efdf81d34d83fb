#!/usr/bin/env bash
# Dependency of the PostgreSQL history tests (tests/history, tests/serve/test_serve_history.py): Debian's
# PostgreSQL server binaries (initdb, pg_ctl). The tests start a throwaway server of their own on
# 127.0.0.1 (as user nobody when run as root) and skip with the reason when they cannot.
# Called by .ci/run; the Python driver (pg8000) comes with the `serve` extra.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  ls -d /usr/lib/postgresql/*/bin | tail -1
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
# the server package only: no cluster is created or started by the tests' own setup
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
ls -d /usr/lib/postgresql/*/bin | tail -1
