"""Recipes: the shipped configurations of gaji's methods, named, versioned and defined once.

A recipe is a method and the options it runs with, plus the words a person reads (Korean and English titles and
help). A recipe's name is accepted wherever a method's name is (`gaji ask --method tree`, `Gaji.ask(method=…)`,
the HTTP API's `method`, `/v1` model names, a benchmark config's `recipe:`), and a trace run by a recipe records
`recipe: name@version`. auto's routes are recipes (gaji/methods/auto/router.py), so the routed tree is written
here only.

    from gaji import recipes
    r = recipes.get("tree")
    r.method, r.options, r.ref          # "toq", {...}, "tree@1"
    from gaji.registry import resolve_method
    method, options, recipe = resolve_method("tree", {"k": 3})   # user options win over the recipe's

A recipe's options are part of what it means: changing them is a new version (bump `version`), so that a trace
or a recorded run that names `tree@1` keeps meaning what it ran. Options that exist only to reproduce old runs
are set here, in the recipe of those runs (`toq-paper`), not left as off-by-default method options.

Knobs are the few settings a person can understand without reading the method (passages, depth, answer language,
effort); each maps to one method option or one request field, and applies to a recipe or method only when its
method has that option (`gaji.registry.method_knobs`). They are for the web page, which can offer recipes and
knobs first and keep raw options behind an "advanced" fold.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gaji.errors import ConfigError


@dataclass(frozen=True)
class Recipe:
    name: str
    version: int
    method: str  # a registered method (gaji.registry.METHODS)
    options: dict[str, Any]  # typed option values; the method's defaults fill the rest
    title_ko: str
    title_en: str
    help_ko: str
    help_en: str

    @property
    def ref(self) -> str:
        """`name@version`, as a trace records it."""
        return f"{self.name}@{self.version}"

    def title(self, lang: str) -> str:
        return self.title_ko if lang == "ko" else self.title_en

    def help(self, lang: str) -> str:
        return self.help_ko if lang == "ko" else self.help_en

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "ref": self.ref, "method": self.method,
                "options": dict(self.options), "title_ko": self.title_ko, "title_en": self.title_en,
                "help_ko": self.help_ko, "help_en": self.help_en}


@dataclass(frozen=True)
class Knob:
    """One understandable setting: a method option (`option`) or a request field (`request_field`), with its words
    and the range a page offers (within the option's own bounds, gaji.coerce)."""

    name: str
    title_ko: str
    title_en: str
    help_ko: str
    help_en: str
    option: str = ""  # the method option it sets ("" when it is a request field)
    request_field: str = ""  # the request field it sets (AskRequest.lang, …)
    choices: tuple[str, ...] = ()  # allowed values, for a choice; empty for a number
    minimum: int | None = None
    maximum: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["choices"] = [*self.choices]
        return d


class RecipeRegistry:
    """Recipes by name, in the order they were added. A recipe may not take a method's name, so that a name means
    one thing wherever it is accepted (tests/test_recipes.py checks it: the methods register later)."""

    def __init__(self) -> None:
        self._entries: dict[str, Recipe] = {}

    def add(self, recipe: Recipe) -> Recipe:
        if recipe.name in self._entries:
            raise ValueError(f"recipe {recipe.name!r} defined twice")
        if "@" in recipe.name or not recipe.name:
            raise ValueError(f"recipe name {recipe.name!r} must be non-empty and hold no '@'")
        if recipe.version < 1:
            raise ValueError(f"recipe {recipe.name!r}: version must be at least 1")
        self._entries[recipe.name] = recipe
        return recipe

    def get(self, name: str) -> Recipe:
        if name not in self._entries:
            raise ConfigError(f"unknown recipe {name!r}; known: {', '.join(self._entries)}")
        return self._entries[name]

    def list(self) -> list[Recipe]:
        return [*self._entries.values()]

    def names(self) -> list[str]:
        return [*self._entries]

    def __contains__(self, name: object) -> bool:
        return name in self._entries


RECIPES = RecipeRegistry()

# closed book: one call, no search
RECIPES.add(Recipe(
    "closed", 1, "nor", {},
    title_ko="검색 없이 답하기", title_en="Closed book",
    help_ko="문서를 찾지 않고 모델이 아는 것으로 바로 답합니다. 가장 빠르지만 문서에 있는 내용은 모릅니다.",
    help_en="Answers from what the model knows, without searching the documents: the fastest, but blind to them.",
))

# one retrieval as auto ships it: a Korean question's passages cut to their 400 characters most relevant to it
# (Hangul costs about three times the tokens per character of English), and an answer of the wrong shape (one the
# question names, or a value where it asks which one) asked about once more
RECIPES.add(Recipe(
    "one", 1, "oner", {"passage_trim": "relevant", "passage_chars_ko": 400, "reask": True},
    title_ko="한 번 검색", title_en="One retrieval",
    help_ko="질문으로 문서를 한 번 찾아 그 문단들로 답합니다. 한 번의 호출로 답하는 간단한 질문에 알맞습니다.",
    help_en="Searches the documents once with the question and answers from those passages, in one call: "
            "for questions one passage can answer.",
))

# the chain auto escalates bridges to: IRCoT (retrieval interleaved with reasoning sentences) with its defaults.
# Not named "chain": that is the CoRAG-style method's name
RECIPES.add(Recipe(
    "chain-ircot", 1, "ircot", {},
    title_ko="연쇄 검색", title_en="Search chain",
    help_ko="추론 문장을 한 줄씩 쓰며 그때마다 다시 검색합니다. 한 사실이 다음 사실로 이어지는 질문에 알맞습니다.",
    help_en="Writes its reasoning a sentence at a time and searches again after each: for questions where one fact "
            "leads to the next.",
))

# a short chain of sub-questions (CoRAG-style, paper 003): at most six steps of sub-question, retrieval and
# sub-answer over passages cut to 400 characters, ended early when the model asks a sub-question it already asked.
# On HotpotQA dev it reached IRCoT's F1 at a fifth of its tokens (benchmarks/auto/cascade/NOTES.md)
RECIPES.add(Recipe(
    "chain-steps", 1, "chain", {"max_length": 6, "stop_on_repeat": True, "passage_chars": 400},
    title_ko="짧은 연쇄 검색", title_en="Step chain",
    help_ko="작은 질문을 하나씩 묻고 찾아 답하며 다음 질문으로 이어 갑니다(최대 6단계). 한 사실이 다음 사실로 "
            "이어지는 질문을 적은 비용으로 풉니다.",
    help_en="Asks one small question at a time, searches and answers it, then asks the next (at most six steps): "
            "for questions where one fact leads to the next, at a small cost.",
))

# the question tree auto ships: the routed decomposer (comparisons split into parallel branches, bridges into
# chains, intersections cut by code), the plain reader with the re-ask, order hints and code deciding an ordered
# comparison or agreeing branches, no per-document relevance calls (the 1.5B model judged 0 of 16 answer-bearing
# Korean paragraphs relevant, at 43 % of the tree's tokens), no evaluation of the root before splitting or after
# its children answer (the last one changed no answer), and the root's reader also reading the whole question's
# top documents. Chosen on the Korean set's dev part (benchmarks/auto/NOTES.md)
RECIPES.add(Recipe(
    "tree", 1, "toq", {"respond": "plain", "evaluate_root": False, "order_hints": True, "decomposer": "routed",
                       "order_decide": True, "integrate": "none", "evaluate_final": False, "final_search": True,
                       "intersect": True, "intersect_decide": True, "reask": True},
    title_ko="질문 트리", title_en="Question tree",
    help_ko="질문을 작은 질문들로 나누어 각각 찾아 답한 뒤 합칩니다. 비교하거나 여러 조건을 함께 묻는 질문에 알맞습니다.",
    help_en="Splits the question into smaller ones, answers each from the documents and puts the answers together: "
            "for comparisons and questions with several conditions.",
))

# the paper's Tree-of-Question (Algorithm 1): evaluate the root's one-retrieval answer, decompose with Prompt B.2
# when it is rejected, judge each document's relevance, answer each node with the few-shot JSON responder. Code
# never decides a comparison or an intersection: the recorded paper runs were measured so
RECIPES.add(Recipe(
    "toq-paper", 1, "toq", {"respond": "json", "decomposer": "paper", "order_decide": False,
                            "intersect_decide": False},
    title_ko="질문 트리 (논문 그대로)", title_en="Question tree (as in the paper)",
    help_ko="Tree-of-Question 논문의 방법 그대로입니다. 먼저 한 번 검색해 답을 평가하고, 부족하면 질문을 나눕니다. "
            "비교·재현 실험용입니다.",
    help_en="Tree-of-Question as its paper describes it: the first answer is evaluated and the question split only "
            "when it falls short. For comparisons with the paper and reproducing its runs.",
))

KNOBS: tuple[Knob, ...] = (
    Knob("effort", "노력", "Effort",
         "더 많이 찾고 더 오래 생각할수록 답이 나아질 수 있지만 느려집니다.",
         "More effort may give a better answer, at more time and tokens.",
         option="effort", choices=("low", "medium", "high")),
    Knob("passages", "문단 수", "Passages",
         "한 번 검색할 때 읽는 문단의 수입니다. 많을수록 놓치는 것이 적지만 느려집니다.",
         "How many passages each search reads: more misses less, but is slower.",
         option="k", minimum=1, maximum=20),
    Knob("depth", "트리 깊이", "Tree depth",
         "질문 트리가 질문을 나누는 단계의 수입니다.", "How many levels the question tree may split the question into.",
         option="max_depth", minimum=1, maximum=4),
    Knob("lang", "답 언어", "Answer language",
         "질문을 따르거나(auto) 한국어·영어로 정합니다.", "Follow the question (auto), or force Korean or English.",
         request_field="lang", choices=("auto", "ko", "en")),
)


def get(name: str) -> Recipe:
    """The recipe `name` (a ConfigError naming the known ones otherwise)."""
    return RECIPES.get(name)


def list() -> list[Recipe]:  # noqa: A001 - the registry's listing, as `recipes.list()`
    return RECIPES.list()


def parse_ref(ref: str) -> tuple[str, int | None]:
    """`tree@1` -> ("tree", 1); `tree` -> ("tree", None). A bad version is a ConfigError."""
    name, _, version = ref.partition("@")
    if not version:
        return name, None
    try:
        return name, int(version)
    except ValueError:
        raise ConfigError(f"recipe {ref!r}: the version after '@' must be a number") from None


def knobs_for(option_names: set[str] | frozenset[str]) -> tuple[Knob, ...]:
    """The knobs that apply to a method with these options: those whose option it has, and the request fields
    every method takes (gaji.registry.method_knobs looks a name up)."""
    return tuple(k for k in KNOBS if k.request_field or k.option in option_names)
