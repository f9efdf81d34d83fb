"""Iter-RetGen prompts: each iteration generates with the chain-of-thought template of prompts/cot.py
over that iteration's paragraphs (Shao et al., 2023 prompt with CoT demonstrations)."""
from __future__ import annotations

from gaji.methods.prompts.cot import HEADER, TITLE, qa_block

__all__ = ["HEADER", "TITLE", "qa_block"]
