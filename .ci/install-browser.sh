#!/usr/bin/env bash
# Dependencies of the browser test (tests/serve/test_serve_browser.py, marker `browser`):
# Chromium and its WebDriver from Debian, a Korean font so Hangul renders in screenshots, and
# Selenium from PyPI (driven with executable_path=/usr/bin/chromedriver; Selenium Manager stays offline).
# Called by .ci/run with the virtualenv active. Without these the browser test skips with a reason.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-nanum >/dev/null
python -m pip install -q "selenium>=4.20"
chromium --version 2>/dev/null | head -1 || true
