"""Markdown `#` headings as sections: the (heading path, text) pieces of a Markdown file.

    >>> [(p, t) for p, t in markdown_sections("# 안내\\n머리말\\n## 예산\\n48억 원\\n")]
    [([], '머리말'), (['예산'], '48억 원')]

- ATX headings (``#`` to ``######`` at the start of a line, up to three spaces in) start sections; ``#`` lines
  inside fenced code blocks (```` ``` ```` / ``~~~``) do not.
- The heading that gives the file its title (`title_heading`: the first line that is not blank) is not a
  section of its own; its body is the file's first piece, with an empty path.
- A section's text is the exact text between its heading line and the next one, without the blank lines at
  either end (code keeps its indentation). A heading with no text of its own lives on in the path of the
  subheadings under it; one with no subheading either becomes a piece holding just its heading line.
"""
from __future__ import annotations

import re

__all__ = ["markdown_sections", "title_heading"]

_ATX_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _trim(lines: list[str]) -> str:
    """The lines joined, without the blank lines at either end."""
    a, b = 0, len(lines)
    while a < b and not lines[a].strip():
        a += 1
    while b > a and not lines[b - 1].strip():
        b -= 1
    return "\n".join(lines[a:b])


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every ATX heading outside fenced code."""
    out, fence = [], ""
    for i, line in enumerate(lines):
        m = _FENCE_RE.match(line)
        if m:
            mark = m.group(1)
            if not fence:
                fence = mark[0] * 3
            elif mark.startswith(fence):
                fence = ""
            continue
        if fence:
            continue
        h = _ATX_RE.match(line)
        if h and h.group(2).strip("# \t"):
            out.append((i, len(h.group(1)), " ".join(h.group(2).split())))
    return out


def title_heading(text: str) -> str:
    """The text of the heading on the first non-blank line, or ""."""
    for line in text.splitlines():
        if line.strip():
            h = _ATX_RE.match(line)
            return " ".join(h.group(2).split()) if h else ""
    return ""


def markdown_sections(text: str) -> list[tuple[list[str], str]]:
    """(heading path, text) of every non-empty piece of a Markdown text, in order (see the module docstring)."""
    lines = text.splitlines()
    heads = _headings(lines)
    if heads and title_heading(text) and not "".join(lines[: heads[0][0]]).strip():
        heads = heads[1:]  # the title line: its body is the first piece
        start = next(i for i, ln in enumerate(lines) if ln.strip()) + 1
    else:
        start = 0
    pieces: list[tuple[list[str], str]] = []
    path: list[tuple[int, str]] = []
    bounds = [h[0] for h in heads] + [len(lines)]
    body = _trim(lines[start: bounds[0]])
    if body.strip():
        pieces.append(([], body))
    for k, (i, level, title) in enumerate(heads):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        body = _trim(lines[i + 1: bounds[k + 1]])
        if body.strip():
            pieces.append(([t for _, t in path], body))
            continue
        nxt = heads[k + 1][1] if k + 1 < len(heads) else 0
        if nxt <= level:  # no text and no subheading: keep the heading line itself
            pieces.append(([t for _, t in path[:-1]], lines[i].strip()))
    return pieces
