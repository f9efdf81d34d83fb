"""Fixtures shared by every test package."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def small_model():
    """One embedded backend on the real 0.5B model for the whole test session (2 slots x 4096 tokens).

    Model tests (marked `model`) share it, so the GGUF is loaded once per session; a test that needs
    the 1.5B model or other settings makes its own. Skips when the model wheels are not installed."""
    from gaji.errors import GajiError
    from gaji.llm.factory import make_llm

    try:
        llm = make_llm("local:small", parallel=2, ctx_size=8192)
    except GajiError as e:  # model wheels not installed / not assembled
        pytest.skip(f"0.5B model unavailable: {e}")
    yield llm
    llm.close()
