"""BENCHMARKS.md stays a document for users: short, its links and section anchors resolve, and neither it nor
the other user docs (README, docs/) nor code comments narrate work-log numbering (an issue's or a working session's number)."""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
BENCH = REPO / "BENCHMARKS.md"
WORKLOG = re.compile(r"\b(issue|session)s? #?\d+", re.IGNORECASE)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_benchmarks_md_is_short():
    assert len(BENCH.read_text(encoding="utf-8").splitlines()) <= 400


def test_links_and_anchors_resolve():
    text = BENCH.read_text(encoding="utf-8")
    anchors = {_anchor(h) for h in re.findall(r"^#{1,3} (.+)$", text, re.MULTILINE)}
    for target in re.findall(r"\]\(#([\w\-]+)\)", text):
        assert target in anchors, f"BENCHMARKS.md links to #{target}, which is no heading"
    for path in set(re.findall(r"`?(benchmarks/[\w\-]+/NOTES\.md)`?", text)) | {"docs/cost-quality.png"}:
        assert (REPO / path).is_file(), f"BENCHMARKS.md names {path}, which does not exist"
    notes = sorted((REPO / "benchmarks").glob("*/NOTES.md"))
    assert notes, "no lab notes under benchmarks/<topic>/NOTES.md"
    for n in notes:  # each notes file points back to the BENCHMARKS.md section it feeds
        for target in re.findall(r"BENCHMARKS\.md#([\w\-]+)", n.read_text(encoding="utf-8")):
            assert target in anchors, f"{n.relative_to(REPO)} links to BENCHMARKS.md#{target}, which is no heading"


def _user_docs() -> list[Path]:
    return [REPO / "README.md", BENCH, *sorted((REPO / "docs").glob("**/*.md"))]


@pytest.mark.parametrize("path", _user_docs(), ids=lambda p: str(p.relative_to(REPO)))
def test_user_docs_have_no_worklog_numbering(path):
    bad = [f"{path.name}:{i}: {m.group(0)!r}" for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           for m in WORKLOG.finditer(line)]
    assert not bad, "work-log numbering in a user doc (say what and why instead):\n" + "\n".join(bad)


def _comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring-like string of a Python file."""
    out: list[tuple[int, str]] = []
    src = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.string.lstrip("rbuf").startswith(('"""', "'''"))):
            out.append((tok.start[0], tok.string))
    return out


def test_code_comments_have_no_worklog_numbering():
    bad = []
    for root in ("gaji", "tests", "lab"):
        for path in sorted((REPO / root).rglob("*.py")):
            for line, text in _comments(path):
                for m in WORKLOG.finditer(text):
                    bad.append(f"{path.relative_to(REPO)}:{line}: {m.group(0)!r}")
    assert not bad, "work-log numbering in code comments (say what and why instead):\n" + "\n".join(bad)
