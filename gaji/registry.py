"""Explicit registries: methods, retrievers and LLM backends are looked up by name, never guessed.

    from gaji.registry import METHODS
    @METHODS.register("oner", help="retrieve once with the question, answer from the passages")
    class OneR(Method): ...
"""
from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

from gaji.coerce import check_range, coerce
from gaji.errors import ConfigError
from gaji.recipes import RECIPES, Knob, Recipe, knobs_for, parse_ref

T = TypeVar("T")


@dataclass
class Entry(Generic[T]):
    name: str
    obj: T
    help: str = ""
    options: dict[str, type] | None = None  # user-settable options and their types (retrievers: --retriever-opt)


class Registry(Generic[T]):
    def __init__(self, kind: str, modules: tuple[str, ...] = ()):
        self.kind = kind
        self._entries: dict[str, Entry[T]] = {}
        self._modules = modules  # imported on first lookup so their @register lines run
        self._loaded = False

    def register(self, name: str, help: str = "", options: dict[str, type] | None = None) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            if name in self._entries and self._entries[name].obj is not obj:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            doc = help or (getattr(obj, "__doc__", "") or "").strip().split("\n")[0]
            self._entries[name] = Entry(name, obj, doc, dict(options or {}))
            return obj

        return deco

    def parse_options(self, name: str, raw: dict[str, Any]) -> dict[str, Any]:
        """Check `raw` (strings from flags, env or a file) against the options `name` declares, and convert them
        to the declared types. An unknown option or a bad value is a ConfigError naming both."""
        self.get(name)
        declared = self._entries[name].options or {}
        out: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise ConfigError(f"{self.kind} {name!r} has no option {key!r}; its options: {known}")
            what = f"option {key!r} of {self.kind} {name!r}"
            out[key] = check_range(key, coerce(value, declared[key], what), what)
        return out

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for m in self._modules:
            importlib.import_module(m)

    def get(self, name: str) -> T:
        self._load()
        if name not in self._entries:
            known = ", ".join(sorted(self._entries)) or "(none)"
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {known}")
        return self._entries[name].obj

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def entries(self) -> list[Entry[T]]:
        self._load()
        return [self._entries[n] for n in sorted(self._entries)]

    def __contains__(self, name: str) -> bool:
        self._load()
        return name in self._entries


# Modules listed here are imported when a registry is first used; adding a method = adding its module here.
METHODS: Registry[Any] = Registry(
    "method",
    (
        "gaji.methods.nor",
        "gaji.methods.oner",
        "gaji.methods.cot",
        "gaji.methods.ircot",
        "gaji.methods.self_ask",
        "gaji.methods.iter_retgen",
        "gaji.methods.toq.method",
        "gaji.methods.contregen.method",
        "gaji.methods.chain",
        "gaji.methods.auto.method",
    ),
)
# Every retriever gaji ships is a module of gaji/retrieve/ (its docstring lists them)
RETRIEVERS: Registry[Any] = Registry(
    "retriever",
    (
        "gaji.retrieve.bm25",
        "gaji.retrieve.dense",
        "gaji.retrieve.hybrid",
        "gaji.retrieve.keyword_boost",
        "gaji.retrieve.keyword_filter",
        "gaji.retrieve.contre",
    ),
)
LLM_BACKENDS: Registry[Any] = Registry(
    "LLM backend", ("gaji.llm.local", "gaji.llm.openai_compat", "gaji.llm.scripted")
)
# How an index turns chunks into BM25 and embedded texts (gaji.index.texts.ChunkTexts), by the name its manifest
# records (config "compose"): the chunk-expansion compositions
COMPOSITIONS: Registry[Any] = Registry("composition", ("gaji.expand.compose",))
# Vector databases for the dense index, by URL scheme (gaji.stores.sync.open_dense_store): milvus://, qdrant+local:, qdrant://
DENSE_STORES: Registry[Any] = Registry("dense store", ("gaji.stores.milvus", "gaji.stores.qdrant"))


def resolve_method(name: str, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any], Recipe | None]:
    """(method, options, recipe) for a method or recipe name (gaji/recipes.py): a recipe's options first, then
    `options` over them; a method's name gives (name, options, None). `name@version` must name the recipe's current
    version. A name that is neither is a ConfigError naming the known ones."""
    given = dict(options or {})
    rname, version = parse_ref(name)
    if rname in METHODS and version is None:
        return rname, given, None
    if rname not in RECIPES:
        raise ConfigError(f"unknown method or recipe {name!r}; known: {', '.join(method_names())}")
    recipe = RECIPES.get(rname)
    if version is not None and version != recipe.version:
        raise ConfigError(f"recipe {rname!r} is at version {recipe.version}, not {version}")
    given = {k.replace("-", "_"): v for k, v in given.items()}
    return recipe.method, {**recipe.options, **given}, recipe


def method_names() -> list[str]:
    """Every name a method is asked by: the registered methods, then the recipes."""
    return [*METHODS.names(), *RECIPES.names()]


def is_method_name(name: str | None) -> bool:
    """Whether `name` is a method or a recipe (`name@version` included)."""
    if not name:
        return False
    try:
        resolve_method(name)
    except ConfigError:
        return False
    return True


def method_knobs(name: str) -> tuple[Knob, ...]:
    """The knobs (gaji/recipes.py) that apply to the method or recipe `name`."""
    cls = METHODS.get(resolve_method(name)[0])
    return knobs_for({f.name for f in dataclasses.fields(cls.Options)})
