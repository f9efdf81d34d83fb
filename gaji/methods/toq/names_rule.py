"""The tree's names rule: a split of a question must keep what the question names (`lost_names`). Its own module
because both the decomposer (for a model's split) and the intersection split by code (intersect.py) apply it."""
from __future__ import annotations

from gaji.methods.toq.tree import SLOT
from gaji.text.normalize import squash
from gaji.text.skeleton import names


def lost_names(subquestions: list[str], question: str, lang: str | None = None, carried: str = "") -> str:
    """Why a split loses the question's names, "" when it keeps them: a sub-question with neither a name of
    the question nor an answer slot asks about something else; a name (other than a number) that no
    sub-question keeps is a dropped constraint. Nothing to check when the question names nothing.

    `carried`: a chain's hidden thing, the words its answer slot stands for ("the King who made the 1925 Birthday
    Honours"). A name of it that no sub-question repeats ("King") is carried by the slot, as long as some
    sub-question keeps another of its names ("Who made the 1925 Birthday Honours?"): the hidden thing is still
    found from the question's own names."""
    found = [n for n in names(question, lang) if squash(n)]
    keys = [squash(n) for n in found]
    if not keys:
        return ""
    subs = [squash(q) for q in subquestions]
    for i, (q, t) in enumerate(zip(subquestions, subs), 1):
        if not SLOT.search(q) and not any(k in t for k in keys):
            return f"sub-question {i} keeps no name of the question and no answer slot"
    # numbers and short all-capital tokens ("EV", "US") are often paraphrased away without loss
    missing = [n for n, k in zip(found, keys) if not k.isdigit() and not (len(n) <= 3 and n.isupper())
               and not any(k in t for t in subs)]
    if missing and carried:
        held = [squash(n) for n in names(carried, lang) if squash(n)]
        anchored = any(k in t for k in held for t in subs)
        missing = [n for n in missing if not (anchored and squash(n) in held)]
    if missing:
        return f"no sub-question keeps {', '.join(missing)}"
    return ""
