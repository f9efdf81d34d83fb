"""`gaji` command line. Each sub-command lives in its own module under gaji/cli/ with a
`register(subparsers)` function that adds its parser and sets `func(args) -> int`.

Errors a user can cause (GajiError) print `error: ...` and exit 2; never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from gaji import __version__
from gaji.errors import GajiError

# Order = order in `gaji --help`.
COMMAND_MODULES = (
    "gaji.cli.demo_cmd",
    "gaji.cli.ask_cmd",
    "gaji.cli.index_cmd",
    "gaji.cli.methods_cmd",
    "gaji.cli.model_cmd",
    "gaji.cli.eval_cmd",
    "gaji.cli.bench_cmd",
    "gaji.cli.serve_cmd",
    "gaji.cli.history_cmd",
    "gaji.cli.keys_cmd",
    "gaji.cli.expand_cmd",
    "gaji.cli.classifier_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gaji",
        description="gaji (가지): tree-of-question retrieval and multi-hop QA over your own documents.",
    )
    p.add_argument("--version", action="version", version=f"gaji {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that command is not built yet / not installed
                continue
            raise
        mod.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except GajiError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
