"""IRCoT prompts. The reasoning step and the CoT reader use the chain-of-thought template of
prompts/cot.py (the paper uses one template for both); the direct reader uses HEADER_DIRECT."""
from __future__ import annotations

from gaji.methods.prompts.cot import HEADER, HEADER_DIRECT, TITLE, Q, qa_block

__all__ = ["HEADER", "HEADER_DIRECT", "Q", "TITLE", "qa_block"]
