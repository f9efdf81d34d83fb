"""The typed data that flows through gaji.

corpus -> Document -> Chunk -> (index) -> Passage -> (method) -> Trace(Node tree, LLMCall)

Everything here is a plain dataclass that serialises to JSON and back losslessly
(`to_dict` / `from_dict`); a Trace is the unit the CLI, the API and the web page render.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterator


def _pick(cls, d: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


@dataclass
class Document:
    """A source document as ingested (one JSONL line, one .txt/.md file)."""

    id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # file it came from

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Document":
        return cls(**_pick(cls, d))


@dataclass
class Chunk:
    """A retrievable unit cut from a Document; `id` is stable across runs."""

    id: str
    doc_id: str
    text: str
    title: str = ""
    lang: str = ""  # "ko" | "en" | "" (unknown)
    start: int = 0  # character offsets in the document text
    end: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Chunk":
        return cls(**_pick(cls, d))


@dataclass
class Passage:
    """A chunk as retrieved: with its score, rank and the retriever that found it."""

    id: str  # chunk id
    doc_id: str
    text: str
    title: str = ""
    score: float = 0.0
    rank: int = 0  # 1-based rank in the result list that produced it
    source: str = ""  # retriever name: "bm25", "dense", "hybrid", ...
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Passage":
        return cls(**_pick(cls, d))


@dataclass
class LLMCall:
    """One call to a language model, as counted: tokens, time, cache."""

    model: str
    purpose: str = ""  # which component made it: "answer", "decompose", "evaluate", ...
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens served from the backend's prompt (KV) cache
    wall_ms: float = 0.0
    cache_hit: bool = False  # answered from gaji's on-disk response cache
    ok: bool = True
    error: str | None = None
    attempts: int = 1
    finish_reason: str = ""
    prompt: Any = None  # messages or prompt text (kept for inspection; may be dropped to save space)
    output: str = ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "LLMCall":
        return cls(**_pick(cls, d))


@dataclass
class Node:
    """A node of a method's tree. Flat methods (oner, cot) have a root with steps as children.

    question: the node's question as first written (may hold [ANS_N] slots)
    filled_question: after slot filling / rewriting (equals question if none)
    query: the search query actually sent to the retriever
    passage_ids: retrieved passages, in rank order (full passages live in Trace.passages)
    relevance: per passage id, method-specific judgements ({"relevant": bool, "span": str})
    scores: evaluator scores, e.g. {"semantic_coherence": 8, "answerability": 70, ...}
    data: anything else the method wants to show (kept as JSON)
    """

    question: str = ""
    kind: str = "node"  # "root", "sub", "step", "followup", "leaf", ...
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    level: int = 0
    filled_question: str = ""
    query: str = ""
    passage_ids: list[str] = field(default_factory=list)
    relevance: dict[str, dict] = field(default_factory=dict)
    answer: str = ""
    scores: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"  # "ok" | "failed" | "skipped" | "running"
    error: str | None = None
    calls: list[LLMCall] = field(default_factory=list)
    children: list["Node"] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    wall_ms: float = 0.0

    def add(self, child: "Node") -> "Node":
        if not child.level:
            child.level = self.level + 1
        self.children.append(child)
        return child

    def walk(self) -> Iterator["Node"]:
        yield self
        for c in self.children:
            yield from c.walk()

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("calls", "children")}
        d = json.loads(json.dumps(d, default=str))
        d["calls"] = [c.to_dict() for c in self.calls]
        d["children"] = [c.to_dict() for c in self.children]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Node":
        base = _pick(cls, d)
        base["calls"] = [LLMCall.from_dict(c) for c in d.get("calls", [])]
        base["children"] = [cls.from_dict(c) for c in d.get("children", [])]
        return cls(**base)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    llm_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, c: LLMCall) -> None:
        self.calls += 1
        self.prompt_tokens += c.prompt_tokens
        self.completion_tokens += c.completion_tokens
        self.cached_tokens += c.cached_tokens
        self.cache_hits += int(c.cache_hit)
        self.failed_calls += int(not c.ok)
        self.llm_ms += c.wall_ms

    def to_dict(self) -> dict:
        d = asdict(self)
        d["total_tokens"] = self.total_tokens
        return d


TRACE_VERSION = 1


@dataclass
class Trace:
    """What one question's run did: the answer, its sources and the whole tree of work."""

    question: str
    method: str
    root: Node = field(default_factory=lambda: Node(kind="root"))
    answer: str = ""
    citations: list[str] = field(default_factory=list)  # passage ids the answer cites
    passages: dict[str, Passage] = field(default_factory=dict)  # every passage seen, by id
    params: dict[str, Any] = field(default_factory=dict)
    lang: str = ""
    model: str = ""
    retriever: str = ""
    wall_ms: float = 0.0
    status: str = "ok"
    error: str | None = None
    version: int = TRACE_VERSION

    def __post_init__(self) -> None:
        if not self.root.question:
            self.root.question = self.question

    # -- passages -------------------------------------------------------
    def remember(self, passages: list[Passage]) -> list[str]:
        """Keep full passages once in the trace; return their ids (for Node.passage_ids)."""
        for p in passages:
            self.passages.setdefault(p.id, p)
        return [p.id for p in passages]

    # -- accounting -----------------------------------------------------
    def calls(self) -> list[LLMCall]:
        return [c for n in self.root.walk() for c in n.calls]

    def usage(self) -> Usage:
        u = Usage()
        for c in self.calls():
            u.add(c)
        return u

    def retrieved_ids(self) -> list[str]:
        """Every retrieved passage id in first-seen order (tree order)."""
        seen: dict[str, None] = {}
        for n in self.root.walk():
            for pid in n.passage_ids:
                seen.setdefault(pid, None)
        return list(seen)

    def summary(self) -> dict:
        u = self.usage()
        return {
            "method": self.method,
            "model": self.model,
            "status": self.status,
            "nodes": sum(1 for _ in self.root.walk()),
            "wall_ms": round(self.wall_ms, 1),
            **u.to_dict(),
        }

    # -- serialisation --------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "version": self.version,
            "question": self.question,
            "method": self.method,
            "answer": self.answer,
            "citations": list(self.citations),
            "lang": self.lang,
            "model": self.model,
            "retriever": self.retriever,
            "params": json.loads(json.dumps(self.params, default=str)),
            "wall_ms": self.wall_ms,
            "status": self.status,
            "error": self.error,
            "usage": self.usage().to_dict(),
            "passages": {k: p.to_dict() for k, p in self.passages.items()},
            "root": self.root.to_dict(),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, d: dict) -> "Trace":
        t = cls(
            question=d["question"],
            method=d["method"],
            root=Node.from_dict(d["root"]),
            answer=d.get("answer", ""),
            citations=list(d.get("citations", [])),
            passages={k: Passage.from_dict(p) for k, p in d.get("passages", {}).items()},
            params=d.get("params", {}),
            lang=d.get("lang", ""),
            model=d.get("model", ""),
            retriever=d.get("retriever", ""),
            wall_ms=d.get("wall_ms", 0.0),
            status=d.get("status", "ok"),
            error=d.get("error"),
            version=d.get("version", TRACE_VERSION),
        )
        return t

    @classmethod
    def from_json(cls, s: str) -> "Trace":
        return cls.from_dict(json.loads(s))
