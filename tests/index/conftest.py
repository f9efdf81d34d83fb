"""Fixtures for the E5 tests: the real tokenizer and a tiny random encoder over its vocabulary (gaji/testing_fixtures.py,
shared with the lab's trainer tests)."""
from gaji.testing_fixtures import tiny_encoder, tokenizer  # noqa: F401
