"""Recipes: the shipped configurations of gaji's methods, named, versioned and defined once.

A recipe is a method and the options it runs with; the words a person reads (Korean and English titles and help)
are the message table's `method.<name>` and `method.<name>.help` (gaji.message_table), as a knob's are
`knob.<name>` and `knob.<name>.help`. A recipe's name is accepted wherever a method's name is (`gaji ask --method tree`, `Gaji.ask(method=…)`,
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
from gaji.messages import has, text


@dataclass(frozen=True)
class Recipe:
    name: str
    version: int
    method: str  # a registered method (gaji.registry.METHODS)
    options: dict[str, Any]  # typed option values; the method's defaults fill the rest

    @property
    def ref(self) -> str:
        """`name@version`, as a trace records it."""
        return f"{self.name}@{self.version}"

    def title(self, lang: str) -> str:
        return text(f"method.{self.name}", lang)

    def help(self, lang: str) -> str:
        return text(f"method.{self.name}.help", lang)

    title_ko = property(lambda self: self.title("ko"))
    title_en = property(lambda self: self.title("en"))
    help_ko = property(lambda self: self.help("ko"))
    help_en = property(lambda self: self.help("en"))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "ref": self.ref, "method": self.method,
                "options": dict(self.options), "title_ko": self.title_ko, "title_en": self.title_en,
                "help_ko": self.help_ko, "help_en": self.help_en}


@dataclass(frozen=True)
class Knob:
    """One understandable setting: a method option (`option`) or a request field (`request_field`), with its words
    (the message table's `knob.<name>`, `knob.<name>.help`) and the range a page offers (within the option's own
    bounds, gaji.coerce)."""

    name: str
    option: str = ""  # the method option it sets ("" when it is a request field)
    request_field: str = ""  # the request field it sets (AskRequest.lang, …)
    choices: tuple[str, ...] = ()  # allowed values, for a choice; empty for a number
    minimum: int | None = None
    maximum: int | None = None

    title_ko = property(lambda self: text(f"knob.{self.name}", "ko"))
    title_en = property(lambda self: text(f"knob.{self.name}", "en"))
    help_ko = property(lambda self: text(f"knob.{self.name}.help", "ko"))
    help_en = property(lambda self: text(f"knob.{self.name}.help", "en"))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["choices"] = [*self.choices]
        d.update(title_ko=self.title_ko, title_en=self.title_en, help_ko=self.help_ko, help_en=self.help_en)
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
        if not (has(f"method.{recipe.name}") and has(f"method.{recipe.name}.help")):
            raise ValueError(f"recipe {recipe.name!r} has no title and help in gaji.message_table "
                             f"(method.{recipe.name}, method.{recipe.name}.help)")
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
RECIPES.add(Recipe("closed", 1, "nor", {}))

# one retrieval as auto ships it: a Korean question's passages cut to their 400 characters most relevant to it
# (Hangul costs about three times the tokens per character of English), and an answer of the wrong shape (one the
# question names, or a value where it asks which one) asked about once more. Reading only the passages that name a
# Korean question's subject (OneR's subject_only) saves a fifth of the passages but scored lower live (52.6 -> 47.3
# on KorQuAD 131-160, benchmarks/auto/cascade/NOTES.md): not part of it
RECIPES.add(Recipe("one", 1, "oner", {"passage_trim": "relevant", "passage_chars_ko": 400, "reask": True}))

# the chain auto escalates bridges to: IRCoT (retrieval interleaved with reasoning sentences) with its defaults.
# Not named "chain": that is the CoRAG-style method's name
RECIPES.add(Recipe("chain-ircot", 1, "ircot", {}))

# a short chain of sub-questions (CoRAG-style, paper 003): at most six steps of sub-question, retrieval and
# sub-answer over passages cut to 400 characters, ended early when the model asks a sub-question it already asked.
# About a fifth of IRCoT's tokens: on HotpotQA dev 47.4 F1 at 2,746 tokens against IRCoT's 51.6 at 15,107; auto
# escalates unsafe Korean bridges to it (benchmarks/auto/cascade/NOTES.md)
RECIPES.add(Recipe("chain-steps", 1, "chain", {"max_length": 6, "stop_on_repeat": True, "passage_chars": 400}))

# the question tree auto ships: the routed decomposer (comparisons split into parallel branches, bridges into
# chains, intersections cut by code), the plain reader with the re-ask, order hints and code deciding an ordered
# comparison or agreeing branches, no per-document relevance calls (the 1.5B model judged 0 of 16 answer-bearing
# Korean paragraphs relevant, at 43 % of the tree's tokens), no evaluation of the root before splitting or after
# its children answer (the last one changed no answer), and the root's reader also reading the whole question's
# top documents. Chosen on the Korean set's dev part (benchmarks/auto/NOTES.md)
RECIPES.add(Recipe(
    "tree", 1, "toq", {"respond": "plain", "evaluate_root": False, "order_hints": True, "decomposer": "routed",
                       "order_decide": True, "integrate": "none", "evaluate_final": False, "final_search": True,
                       "intersect": True, "intersect_decide": True, "reask": True}))

# the paper's Tree-of-Question (Algorithm 1): evaluate the root's one-retrieval answer, decompose with Prompt B.2
# when it is rejected, judge each document's relevance, answer each node with the few-shot JSON responder. Code
# never decides a comparison or an intersection: the recorded paper runs were measured so
RECIPES.add(Recipe(
    "toq-paper", 1, "toq", {"respond": "json", "decomposer": "paper", "order_decide": False,
                            "intersect_decide": False}))

KNOBS: tuple[Knob, ...] = (
    Knob("effort", option="effort", choices=("low", "medium", "high")),
    Knob("passages", option="k", minimum=1, maximum=20),
    Knob("depth", option="max_depth", minimum=1, maximum=4),
    Knob("lang", request_field="lang", choices=("auto", "ko", "en")),
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
