"""Prompt templates per method, in English and Korean (dicts keyed by language)."""
