"""Fixtures for the trainers' tests: the real E5 tokenizer and a tiny random encoder over its vocabulary
(gaji/testing_fixtures.py, shared with gaji's E5 tests)."""
from gaji.testing_fixtures import tiny_encoder, tokenizer  # noqa: F401
