"""Test helpers for tests/expand (and the keyword retrievers' tests in tests/retrieve): a scripted expansion LLM, a
tiny recording embedder, a small expanded index with candidate questions, the multi-task fixture chunks."""
from __future__ import annotations

import hashlib
import json
import re

import numpy as np

from gaji.expand.generator import Expansion
from gaji.index.dense import EMBEDDER_FACTORIES, Embedder
from gaji.llm.scripted import ScriptedLLM, request_text
from gaji.testing import MULTITASK_CHUNKS  # noqa: F401  (the multi-task fixture chunks, shared with the lab's tests)
from gaji.types import Document

FAKE_ID = "test/expand-recording-embedder-16"


def chunk_of(req) -> str:
    """The chunk text in an expansion request (the last user message, after "[Chunk]: ")."""
    last = req.messages[-1]["content"]
    return last.split("[Chunk]: ", 1)[1]


def expansion_reply(req) -> str:
    """A deterministic expansion derived from the chunk: title = first 3 words, questions name word #1."""
    words = re.findall(r"\w+", chunk_of(req))
    head = " ".join(words[:3])
    ko = "[문서 제목]" in req.messages[-1]["content"] or "다음 문서 조각" in req.messages[-1]["content"]
    if ko:
        qs = [f"{words[0]}은 무엇인가요?", f"{words[-1]}와 관련된 내용은?", "zqexpandterm 관련 질문은?"]
    else:
        qs = [f"What is {words[0]}?", f"How about {words[-1]}?", "zqexpandterm question?"]
    return json.dumps({"title": f"About {head}", "questions": qs}, ensure_ascii=False)


def expand_llm(**kw) -> ScriptedLLM:
    return ScriptedLLM([(r"\[Chunk\]", expansion_reply)], **kw)


class RecordingEmbedder(Embedder):
    """Hashed bag of words (16 dims); remembers every passage text it embedded."""

    model_id = FAKE_ID
    dim = 16

    def __init__(self) -> None:
        self.texts: list[str] = []

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in text.lower().split():
            v[int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_passages(self, texts):
        self.texts.extend(texts)
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts):
        return np.stack([self._vec(t) for t in texts])


_INSTANCE = RecordingEmbedder()
EMBEDDER_FACTORIES[FAKE_ID] = lambda: _INSTANCE


def recording_embedder() -> RecordingEmbedder:
    _INSTANCE.texts = []
    return _INSTANCE


# four chunks (three English, one Korean) with a title and candidate questions each: the chunk-keywords file
# and the keyword filter's metadata
KEYWORD_DOCS = [
    Document(id="a", text="apple pie recipe with apple and sugar"),
    Document(id="b", text="apple orchard harvest in the autumn"),
    Document(id="c", text="cherry tart and apple"),
    Document(id="d", text="대기오염 경보는 미세먼지 농도로 발령된다"),
]
KEYWORD_EXPANSIONS = {
    "a": Expansion("a", "Apple pie", ["How do you bake apple pie?", "What sugar goes into pie?"]),
    "b": Expansion("b", "Orchards", ["When is the orchard harvest?"]),
    "c": Expansion("c", "Cherry tart", ["How to make cherry tart?"]),
    "d": Expansion("d", "대기오염 경보", ["미세먼지 경보는 언제 발령되나요?"]),
}


def expanded_keyword_index(path):
    """KEYWORD_DOCS built with their expansions (case7) and the recording embedder: BM25 and dense."""
    from gaji.expand.index_hook import expansion_step
    from gaji.index.build import build_index

    return build_index(KEYWORD_DOCS, path, extension=expansion_step(expansions=KEYWORD_EXPANSIONS, compose="case7"),
                       embedder=recording_embedder(), progress=False)


__all__ = ["expand_llm", "expansion_reply", "chunk_of", "recording_embedder", "request_text", "FAKE_ID",
           "KEYWORD_DOCS", "KEYWORD_EXPANSIONS", "expanded_keyword_index"]
