"""The shared benchmark data (read-only): where it is, which files a dataset has, and KorQuAD questions.

    >>> questions, corpus = dataset_paths("hotpotqa")
    >>> for q in load_questions(questions): ...     # {id, question, answers, supporting, dataset, ...}

The data dir is ``$GAJI_DATA``, else ``../shared/data`` relative to the current directory, else
relative to the repository root. KorQuAD is the official ``KorQuAD_v1.0_dev.json``: it is converted
at load time (never re-saved); its paragraphs get the ids of `gaji.corpus.readers.read_korquad`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gaji.errors import ConfigError, InputError

__all__ = [
    "DATASETS",
    "KORQUAD_FILE",
    "find_data_dir",
    "data_dir",
    "dataset_paths",
    "resolve_corpus",
    "load_questions",
    "load_korquad_questions",
]

KORQUAD_FILE = "KorQuAD_v1.0_dev.json"
# name -> (questions file, corpus file or None)
DATASETS: dict[str, tuple[str, str | None]] = {
    "hotpotqa": ("hotpotqa.jsonl", "hotpotqa.corpus.jsonl"),
    "2wikimultihopqa": ("2wikimultihopqa.jsonl", "2wikimultihopqa.corpus.jsonl"),
    "musique": ("musique.jsonl", "musique.corpus.jsonl"),
    "bamboogle": ("bamboogle.jsonl", None),
    "asqa": ("asqa.jsonl", "asqa.corpus.jsonl"),
    "odsum_story": ("odsum_story.jsonl", "odsum_story.corpus.jsonl"),
    "koblex": ("koblex.jsonl", "koblex.corpus.jsonl"),
    "korquad": (KORQUAD_FILE, KORQUAD_FILE),
}
_REPO_ROOT = Path(__file__).resolve().parents[2]


def find_data_dir() -> Path | None:
    """The shared data dir, or None when it cannot be found."""
    env = os.environ.get("GAJI_DATA")
    if env:
        p = Path(env).expanduser()
        return p if p.is_dir() else None
    for base in (Path.cwd(), _REPO_ROOT):
        p = (base / ".." / "shared" / "data").resolve()
        if p.is_dir():
            return p
    return None


def data_dir() -> Path:
    """The shared data dir; ConfigError saying how to point at it when absent."""
    p = find_data_dir()
    if p is None:
        env = os.environ.get("GAJI_DATA")
        where = f"$GAJI_DATA={env} is not a folder" if env else "not found at ../shared/data"
        raise ConfigError(f"shared benchmark data {where}; set GAJI_DATA to the folder holding <name>.jsonl files")
    return p


def _known() -> str:
    return ", ".join(DATASETS)


def dataset_paths(name: str, root: str | Path | None = None) -> tuple[Path, Path | None]:
    """(questions file, corpus file or None) of a shared dataset. Unknown name -> ConfigError."""
    key = name.strip().lower()
    if key not in DATASETS:
        raise ConfigError(f"unknown dataset {name!r}; known: {_known()}")
    base = Path(root) if root is not None else data_dir()
    q, c = DATASETS[key]
    return base / q, (base / c if c else None)


def resolve_corpus(spec: str | Path) -> Path:
    """A corpus argument: an existing path, else a shared dataset name (``hotpotqa``, ``korquad``, ...)."""
    p = Path(spec)
    if p.exists():
        return p
    key = str(spec).strip().lower()
    if key in DATASETS:
        _, corpus = dataset_paths(key)
        if corpus is None:
            raise ConfigError(f"dataset {key!r} has no corpus (closed-book only)")
        if not corpus.exists():
            raise InputError(f"corpus file of dataset {key!r} is missing", path=str(corpus))
        return corpus
    raise InputError(f"no such file or folder, nor a shared dataset name (known: {_known()})", path=str(spec))


def load_korquad_questions(path: str | Path) -> Iterator[dict[str, Any]]:
    """KorQuAD 1.0 questions in gaji's question format, converted at load time.

    Yields ``{id, question, answers, supporting: [{doc_id, title, text}], dataset: "korquad", type,
    answer_starts}``; ``doc_id`` is the paragraph's Document id (``korquad-{article}-{paragraph}``).
    """
    from gaji.corpus.readers import _load_json, _Ctx, ReadReport, is_korquad

    path = Path(path)
    data = _load_json(path, _Ctx(False, ReadReport()))
    if not is_korquad(data):
        raise InputError("not a KorQuAD/SQuAD file (expected {'data': [{'title', 'paragraphs'}]})", path=str(path))
    for a_idx, article in enumerate(data["data"]):
        title = str(article.get("title") or "").strip()
        for p_idx, para in enumerate(article.get("paragraphs") or []):
            context = para.get("context", "")
            for q_idx, qa in enumerate(para.get("qas") or []):
                answers: list[str] = []
                for a in qa.get("answers") or []:
                    t = (a.get("text") or "").strip()
                    if t and t not in answers:
                        answers.append(t)
                yield {
                    "id": str(qa.get("id") or f"korquad-{a_idx}-{p_idx}-{q_idx}"),
                    "question": (qa.get("question") or "").strip(),
                    "answers": answers,
                    "supporting": [{"doc_id": f"korquad-{a_idx}-{p_idx}", "title": title, "text": context}],
                    "dataset": "korquad",
                    "type": "single-hop (extractive)",
                    "answer_starts": [a.get("answer_start") for a in qa.get("answers") or []],
                }


def load_questions(path: str | Path) -> Iterator[dict[str, Any]]:
    """Questions from a ``<name>.jsonl`` file (or the KorQuAD JSON), as dicts; InputError names file:line."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        yield from load_korquad_questions(path)
        return
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError:
                raise InputError("not valid UTF-8", path=str(path), line=lineno) from None
            if not line.strip():
                continue
            try:
                q = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"malformed JSON: {e.msg}", path=str(path), line=lineno) from None
            if not isinstance(q, dict) or not isinstance(q.get("question"), str):
                raise InputError("expected an object with a 'question' string", path=str(path), line=lineno, field="question")
            yield q
