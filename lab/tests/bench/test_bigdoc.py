"""`gaji bench bigdoc` (gaji_lab.bench.bigdoc): the pieces cover the text, and a tiny run reports every stage with
linear chunk and window counts (the timings themselves are the benchmark's, not asserted here)."""
from __future__ import annotations

import numpy as np
import pytest

from gaji_lab.bench.bigdoc import STAGES, markdown, run_bigdoc, split_pieces
from gaji.corpus.shared_data import find_data_dir
from gaji.index.dense import EMBEDDER_FACTORIES, Embedder

DATA = find_data_dir()


class _WindowedFake(Embedder):
    """Deterministic vectors; one 'window' per started 400 characters, like a length-capped model input."""

    model_id = "test/bigdoc-fake-8"
    dim = 8

    def embed_passages(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % self.dim] = 1.0
        return out

    def embed_queries(self, texts):
        return self.embed_passages(texts)

    def window_count(self, texts):
        return sum(max(1, -(-len(t) // 400)) for t in texts)


_FAKE = _WindowedFake()
EMBEDDER_FACTORIES[_FAKE.model_id] = lambda: _FAKE


def test_split_pieces_keeps_every_sentence_in_pieces_of_at_most_the_size():
    text = " ".join(f"Sentence number {i} is here." for i in range(400)) + " " + "Y" * 900 + "."
    pieces = split_pieces(text, 300)
    assert len(pieces) > 30
    assert all(len(p) <= 300 for p in pieces[:-1]) and pieces[-1] == "Y" * 900 + "."  # a long sentence alone
    assert " ".join(pieces) == text


@pytest.mark.data
@pytest.mark.skipif(DATA is None, reason="../shared/data not found")
def test_a_small_run_reports_every_stage_and_linear_counts(tmp_path):
    res = run_bigdoc(chars=40_000, langs=("ko", "en"), work=tmp_path / "w", embedder=_FAKE, data=DATA)
    for lang in ("ko", "en"):
        e = res["langs"][lang]
        one, many = e["one"], e["many"]
        assert one["documents"] == 1 and 39_900 <= one["chars"] <= 40_000 and many["documents"] >= 20
        assert abs(many["chars"] - one["chars"]) < 0.01 * one["chars"]  # the same text, less the blank lines
        assert 4 <= one["chunks"] <= 5 and one["max_chunk_chars"] <= 10_000  # the default chunk size caps it
        assert many["max_chunk_chars"] <= 2000
        assert one["embedded_chars"] >= one["chars"] and one["windows"] <= many["windows"] + one["chunks"]
        assert set(e["ratio"]) == {label for label, _ in STAGES} | {"total (wall)", "total (CPU)"}
        assert one["stages_s"]["embed"] > 0 and e["ratio"]["embed"] is not None
    text = markdown(res)
    assert "| embed |" in text and "**ko**" in text and "**en**" in text
