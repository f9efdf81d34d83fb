"""`gaji` command line. Every command lives in a module under gaji/cli/ with a `register(subparsers)` function
that adds its parser(s) and sets `func(args) -> int`; COMMANDS below lists every such module. The command modules
only read flags and print: the work is done by plain functions of the packages (gaji.index, gaji.eval, …).

The lab (lab/, the distribution gaji-lab: benchmarks, trainers, recording tools) adds its commands through the
`gaji.commands` entry points; gaji itself never imports it.

Errors a user can cause (GajiError) print `error: ...` and exit 2; never a traceback. `gaji index build|add|sync`
exit 3 after a partial run: the good files were indexed and each refused file is listed with its reason.
Errors are printed in the
user's language (`--lang ko|en` where a command has it, else GAJI_LANG or the locale: `오류: …` under ko_KR)
from the message table (gaji.messages) where the error carries a table message.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points

from gaji import __version__
from gaji.errors import GajiError
from gaji.messages import env_lang, error_text, lang_of, text

# Every command module, in `gaji --help` order. A (group, members) pair is a command with sub-commands: the group
# module's register() returns its sub-command list, and each member module adds its sub-command(s) to it, in order.
# A Lab entry is where the lab's commands go; inside a group it is named after the group it extends.
@dataclass(frozen=True)
class Lab:
    """The commands the lab (the separate distribution gaji-lab, package gaji_lab) adds at this place: the
    register functions of its `gaji.commands` entry points named `name`. Without the lab, each of `commands`
    is a placeholder that says how to install it and exits 2."""
    name: str
    commands: tuple[str, ...]


COMMANDS: tuple[str | Lab | tuple[str, tuple[str | Lab, ...]], ...] = (
    "gaji.cli.demo_cmd",
    "gaji.cli.ask_cmd",
    "gaji.cli.index_cmd",
    "gaji.cli.methods_cmd",
    "gaji.cli.model_cmd",
    "gaji.cli.eval_cmd",
    Lab("bench", ("bench",)),  # the benchmarks: retrieval, run, check, plot, …
    "gaji.cli.serve_cmd",
    "gaji.cli.history_cmd",
    "gaji.cli.keys_cmd",
    ("gaji.cli.expand_cmd", (  # run, show
        "gaji.cli.expand_keywords",  # keywords, chunk-keywords
        Lab("expand", ("label", "train-tagger", "train", "subset", "bench")),  # teacher labels, training, Table 7
        "gaji.cli.expand_judge",  # judge
    )),
    Lab("classifier", ("classifier",)),  # training the classifiers and routers
)

ENTRY_POINTS = "gaji.commands"  # the entry-point group the lab declares its commands in (lab/pyproject.toml)
LAB_INSTALL = "pip install -e ./lab"


def lab_registrars(name: str) -> list:
    """The register functions the installed lab declares under `name`, in entry-point order ([] without it)."""
    return [ep.load() for ep in entry_points(group=ENTRY_POINTS) if ep.name == name]


def _add_lab(sub, lab: Lab, prefix: str) -> set[str]:
    """Add the lab's commands, or a placeholder per command; returns the command paths that are placeholders."""
    registrars = lab_registrars(lab.name)
    for register in registrars:
        register(sub)
    if registrars:
        return set()
    missing = set()
    for cmd in lab.commands:
        path = f"{prefix}{cmd}"
        p = sub.add_parser(cmd, help=f"(lab, not installed: {LAB_INSTALL})", add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=lambda _a, path=path: _print_missing(path))
        missing.add(path)
    return missing


def _print_missing(path: str) -> int:
    lang = env_lang()
    print(f"{text('error.prefix', lang)}: {text('error.lab_missing', lang, path=path, install=LAB_INSTALL)}",
          file=sys.stderr)
    return 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gaji",
        description="gaji (가지): tree-of-question retrieval and multi-hop QA over your own documents.",
    )
    p.add_argument("--version", action="version", version=f"gaji {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    missing: set[str] = set()
    for entry in COMMANDS:
        if isinstance(entry, Lab):
            missing |= _add_lab(sub, entry, "")
            continue
        group, members = (entry, ()) if isinstance(entry, str) else entry
        gsub = importlib.import_module(group).register(sub)
        for name in members:
            if isinstance(name, Lab):
                missing |= _add_lab(gsub, name, f"{name.name} ")
            else:
                importlib.import_module(name).register(gsub)
    p.set_defaults(lab_missing=missing)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    # a lab command without the lab: say how to install it before argparse sees the command's own flags
    words = [a for a in argv[:2] if not a.startswith("-")]
    for n in (2, 1):
        if len(words) >= n and " ".join(words[:n]) in parser.get_default("lab_missing"):
            return _print_missing(" ".join(words[:n]))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except GajiError as e:
        lang = user_lang(args)
        print(f"{text('error.prefix', lang)}: {error_text(e, lang)}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(text("error.interrupted", user_lang(args)), file=sys.stderr)
        return 130


def user_lang(args: argparse.Namespace) -> str:
    """The language to speak to the user in: the command's --lang when it names one, else the environment's."""
    flag = getattr(args, "lang", None)
    if isinstance(flag, str) and lang_of(flag, "") in ("ko", "en"):
        return lang_of(flag)
    return env_lang()


if __name__ == "__main__":
    sys.exit(main())
