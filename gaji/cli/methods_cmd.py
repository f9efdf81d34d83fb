"""`gaji methods`: list the recipes (shipped configurations, with their titles), the registered methods (with
their options), retrievers and LLM backends."""
from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from gaji import recipes
from gaji.messages import env_lang, method_help, method_title, text
from gaji.registry import LLM_BACKENDS, METHODS, RETRIEVERS, method_knobs


def register(sub) -> None:
    p = sub.add_parser("methods", help="list recipes, methods, retrievers and LLM backends")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def describe_registries() -> dict:
    methods = []
    for e in METHODS.entries():
        methods.append({
            "name": e.name,
            "help": e.help,
            "needs_retriever": getattr(e.obj, "needs_retriever", True),
            "options": [{"name": n, "type": t, "default": d} for n, t, d in e.obj.option_help()],
        })
    listed = [{**r.to_dict(), "needs_retriever": getattr(METHODS.get(r.method), "needs_retriever", True),
               "knobs": [k.name for k in method_knobs(r.name)]} for r in recipes.list()]
    return {
        "recipes": listed,
        "knobs": [k.to_dict() for k in recipes.KNOBS],
        "methods": methods,
        "retrievers": [{"name": e.name, "help": e.help} for e in RETRIEVERS.entries()],
        "llm_backends": [{"name": e.name, "help": e.help} for e in LLM_BACKENDS.entries()],
    }


def run(args) -> int:
    info = describe_registries()
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2, default=str))
        return 0
    con = Console()
    lang = env_lang()
    t = Table(title=text("methods.recipes", lang))
    for col in ("recipe", "title", "does", "runs"):
        t.add_column(text(f"methods.{col}", lang))
    for r in info["recipes"]:
        runs = r["method"] + (f" ({', '.join(f'{k}={v}' for k, v in r['options'].items())})" if r["options"] else "")
        t.add_row(r["ref"], r[f"title_{lang}"], r[f"help_{lang}"], runs)
    con.print(t)
    t = Table(title=text("methods.methods", lang))
    for col in ("method", "title", "does", "options"):
        t.add_column(text(f"methods.{col}", lang))
    for m in info["methods"]:
        t.add_row(m["name"], method_title(m["name"], lang), method_help(m["name"], lang, m["help"]),
                  ", ".join(f"{o['name']}={o['default']}" for o in m["options"]))
    con.print(t)
    for key, title in (("retrievers", "retrievers (--retriever)"), ("llm_backends", "LLM backends (--llm KIND[:ARG])")):
        t = Table(title=title)
        t.add_column("name")
        t.add_column("what it is")
        for e in info[key]:
            t.add_row(e["name"], e["help"])
        con.print(t)
    return 0
