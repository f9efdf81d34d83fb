"""Flags shared by sub-commands, and turning them into Settings (see gaji/config.py)."""
from __future__ import annotations

import argparse

from gaji.coerce import MAX_K
from gaji.config import Settings, load_settings


def add_settings_flags(p: argparse.ArgumentParser, *, index: bool = True) -> None:
    g = p.add_argument_group("settings (flag > env GAJI_* > config file > default)")
    g.add_argument("--config", help="config file (.toml/.yaml); default ./gaji.toml if present")
    g.add_argument("--llm", help="LLM spec: local | local:small | local:PATH.gguf | openai:MODEL | scripted")
    g.add_argument("--base-url", dest="base_url", help="server URL for openai:MODEL")
    if index:
        g.add_argument("--index", help="index directory (from `gaji index build`)")
        g.add_argument("--retriever", help="bm25 | dense | hybrid (default hybrid)")
        g.add_argument("--retriever-opt", dest="retriever_options", action="append", metavar="KEY=VALUE",
                       help="an option of the retriever (repeatable), e.g. rrf_k=30, or max_depth=1 for contre")
        g.add_argument("-k", "--k", type=int, dest="k", help=f"passages per retrieval (1 to {MAX_K})")
    g.add_argument("--lang", choices=["auto", "ko", "en"], help="prompt language (default: follows the question)")
    g.add_argument("--cache", action=argparse.BooleanOptionalAction, default=None, help="on-disk LLM response cache")
    g.add_argument("--parallel", type=int, help="LLM parallel slots (embedded backend)")
    g.add_argument("--ctx-size", dest="ctx_size", type=int, help="LLM context size (embedded backend)")
    g.add_argument("--threads", type=int, help="CPU threads for the embedded LLM (0 = all)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    keys = ("llm", "base_url", "index", "retriever", "k", "lang", "cache", "parallel", "ctx_size", "threads", "method")
    flags = {k: getattr(args, k, None) for k in keys}
    if getattr(args, "retriever_options", None):
        flags["retriever_options"] = parse_kv(args.retriever_options)
    return load_settings(flags, config_path=getattr(args, "config", None))


def parse_kv(pairs: list[str] | None) -> dict[str, str]:
    """`-o key=value` pairs -> dict (method options)."""
    from gaji.coerce import parse_pairs
    from gaji.errors import ConfigError

    try:
        return parse_pairs(pairs or [])
    except ValueError as e:
        raise ConfigError(f"option {e.args[0]!r} must look like key=value") from None


def split_names(text: str) -> list[str]:
    """"a, b,,c" -> ["a", "b", "c"] (comma-separated flag values)."""
    return [x.strip() for x in text.split(",") if x.strip()]
