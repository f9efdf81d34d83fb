"""Constants the server tests share (imported by conftest.py and the test modules)."""
from __future__ import annotations

# the Host names test requests carry: loopback (live servers) and Starlette's TestClient "testserver"
TEST_HOSTS = ["127.0.0.1", "localhost", "::1", "testserver"]
NDJSON = {"content-type": "application/x-ndjson"}  # what a document upload must declare
