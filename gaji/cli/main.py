"""`gaji` command line. Every command lives in a module under gaji/cli/ with a `register(subparsers)` function
that adds its parser(s) and sets `func(args) -> int`; COMMANDS below lists every such module. The command modules
only read flags and print: the work is done by plain functions of the packages (gaji.bench, gaji.expand, …).

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

from gaji import __version__
from gaji.errors import GajiError
from gaji.messages import env_lang, error_text, lang_of, text

# Every command module, in `gaji --help` order. A (group, members) pair is a command with sub-commands: the group
# module's register() returns its sub-command list, and each member module adds its sub-command(s) to it, in order.
COMMANDS: tuple[str | tuple[str, tuple[str, ...]], ...] = (
    "gaji.cli.demo_cmd",
    "gaji.cli.ask_cmd",
    "gaji.cli.index_cmd",
    "gaji.cli.methods_cmd",
    "gaji.cli.model_cmd",
    "gaji.cli.eval_cmd",
    ("gaji.cli.bench_cmd", (
        "gaji.cli.bench_retrieval",  # retrieval
        "gaji.cli.bench_embed",  # embed
        "gaji.cli.bench_runner",  # run, check, report
        "gaji.cli.bench_sweep",  # sweep
        "gaji.cli.bench_serve",  # serve
        "gaji.cli.bench_injection",  # injection
        "gaji.cli.bench_security",  # security
        "gaji.cli.bench_scale",  # llm-server, dense-store, ray-embed, ray-expand
        "gaji.cli.bench_toq_depth",  # toq-depth, toq-judge
        "gaji.cli.bench_probes",  # evaluator, decomposer, verifier
        "gaji.cli.bench_trim",  # trim
        "gaji.cli.bench_documents",  # documents, crossdoc
        "gaji.cli.bench_build",  # build, embed-workers
        "gaji.cli.bench_bigdoc",  # bigdoc
        "gaji.cli.bench_plot",  # plot
        "gaji.cli.bench_chat",  # followups, ttft
        "gaji.cli.bench_durability",  # crash, concurrency
        "gaji.cli.bench_readers",  # fuzz-readers
    )),
    "gaji.cli.serve_cmd",
    "gaji.cli.history_cmd",
    "gaji.cli.keys_cmd",
    ("gaji.cli.expand_cmd", (  # run, show
        "gaji.cli.expand_keywords",  # label, train-tagger, train, keywords, chunk-keywords, subset, bench
        "gaji.cli.expand_judge",  # judge
    )),
    "gaji.cli.classifier_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gaji",
        description="gaji (가지): tree-of-question retrieval and multi-hop QA over your own documents.",
    )
    p.add_argument("--version", action="version", version=f"gaji {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for entry in COMMANDS:
        group, members = (entry, ()) if isinstance(entry, str) else entry
        gsub = importlib.import_module(group).register(sub)
        for name in members:
            importlib.import_module(name).register(gsub)
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
