"""The passages about a question's own subject. A Korean question about one named thing ("임세영이 다시 개량한 권법의
이름은?") is answered from its paragraphs; a retrieved passage that names none of the question's names is about
something else (a politician's page, ranked fourth for "다시"), and the 1.5B reader given it beside the right ones
has answered from it ("이명박 정부 출범의 뒤를 이어 … 한나라당이 최다 의석을 차지했다"). Setting such passages aside
before the one-retrieval reader reads them also saves their tokens.

Only for a question about one thing: a bridge ("…서울시장이 태어난 도시는?"), a choice or a pair ("A와 B 중", "둘 다"),
or two conditions on one asked thing name their answer's page by neither of its names, and are left as retrieved.
English questions are left too: the English sets here are all multi-hop, whose second page names none of the
question's names. OneR's option `subject_only`, off by default and in auto's first rung: it set aside no gold
paragraph of any recorded Korean run, but the reader scored lower on the narrowed prompts (KorQuAD 131-160, 47.3
against 52.6; `benchmarks/auto/cascade/NOTES.md`)."""
from __future__ import annotations

from gaji.text.normalize import squash
from gaji.text.sentences import split_sentences
from gaji.text.skeleton import names
from gaji.types import Passage


def subject_names(question: str, lang: str) -> list[str]:
    """The names a passage about the question's subject would hold ([] when the question is not about one named
    thing, or not Korean): the question's names of two characters or more that are not bare numbers."""
    if lang != "ko" or not about_one_thing(question):
        return []
    return [n for n in names(question, lang) if len(squash(n)) >= 2 and not squash(n).isdigit()]


def about_one_thing(question: str) -> bool:
    """Is a Korean question about one named thing: one sentence (a story of facts before the question, as legal
    questions tell, names parties, not a page's subject), and not a bridge, a choice, a pair or two conditions?"""
    from gaji.methods import bridge, check
    from gaji.methods.toq.intersect import detect

    return not (len(split_sentences(question)) > 1 or bridge.parse_bridge(question, "ko") or bridge.is_choice(question)
                or check.parse_check(question, "ko") or detect(question, "ko"))


def about_subject(passages: list[Passage], question: str, lang: str) -> list[Passage]:
    """The passages that hold one of the question's subject names, in rank order; all of them when the question
    has no such names or no passage holds one."""
    return holding(passages, subject_names(question, lang))


def holding(passages: list[Passage], names: list[str]) -> list[Passage]:
    """The passages whose title or text holds one of `names`, in rank order; all of them when none does."""
    wanted = [n for n in (squash(x) for x in names) if n]
    kept = [p for p in passages if any(n in squash(f"{p.title} {p.text}") for n in wanted)]
    return kept or passages
