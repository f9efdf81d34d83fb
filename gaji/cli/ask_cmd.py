"""`gaji ask "question" --index DIR [--method M] [-o key=value] [--json] [--tree] [--conversation ID|new]`.

On a terminal the answer is printed as the method writes it (`--stream`), then the tree, the final
answer, its sources and the cost. `--conversation new` starts a conversation in the history database
(the `history_db` setting) and prints its id; `--conversation ID` asks a follow-up in it: the question
is rewritten into a standalone one from the turns before it, and stored as the next turn.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from gaji import recipes
from gaji.cli.common import add_settings_flags, parse_kv, settings_from_args
from gaji.errors import ConfigError
from gaji.llm.streaming import AnswerDelta
from gaji.methods.trace_display import fill_display
from gaji.types import Trace, format_location

CLI_CLIENT = "cli"  # the client name the history records for questions asked here


def register(sub) -> None:
    p = sub.add_parser("ask", help="answer a question over an index")
    p.add_argument("question", help="the question (Korean or English)")
    p.add_argument("--method", "-m", help="method or recipe name (see `gaji methods`), e.g. tree, one, toq; "
                                          "default: from settings, auto")
    p.add_argument("--recipe", "-r", help="a recipe of the method (see `gaji methods`), e.g. --method toq --recipe "
                                          "toq-paper; the same as --method RECIPE")
    p.add_argument("-o", "--opt", action="append", metavar="KEY=VALUE", help="method option, repeatable")
    p.add_argument("--effort", choices=("low", "medium", "high"),
                   help="auto: how readily an unsure one-retrieval answer escalates to a chain or the tree "
                        "(the same as -o effort=…; default medium)")
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    p.add_argument("--tree", action=argparse.BooleanOptionalAction, default=None,
                   help="show the method's tree (default: on when the method built one)")
    p.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                   help="print the answer as it is written (default: on when the output is a terminal, off with --json)")
    p.add_argument("--conversation", metavar="ID|new",
                   help="ask in a stored conversation: `new` starts one (its id is printed), ID continues one "
                   "(the question is read as a follow-up)")
    p.add_argument("--history-db", dest="history_db", metavar="PATH|URL",
                   help="the history database for --conversation (default $GAJI_HOME/history.sqlite3; env GAJI_HISTORY_DB)")
    add_settings_flags(p)
    p.set_defaults(func=run)


def cost_line(trace: Trace) -> str:
    u = trace.usage()
    parts = [
        f"calls {u.calls}",
        f"tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion",
        f"prompt-cache {u.cached_tokens} tok",
        f"cache hits {u.cache_hits}",
        f"LLM {u.llm_ms / 1000:.1f} s",
        f"wall {trace.wall_ms / 1000:.1f} s",
    ]
    if u.failed_calls:
        parts.append(f"failed calls {u.failed_calls}")
    return " · ".join(parts)


def component_line(trace: Trace) -> str:
    """Tokens by component (LLMCall.purpose), largest first: "decompose 1,200 · answer 650 · evaluate 400"."""
    by = sorted(trace.usage_by_purpose().items(), key=lambda kv: -kv[1].total_tokens)
    return " · ".join(f"{p} {u.total_tokens:,}" for p, u in by)


def print_trace(trace: Trace, con: Console, tree: bool | None = None) -> None:
    if tree is None:  # a tree to show, or a root the method judged and decided about (e.g. chose not to split)
        fill_display(trace)
        root = trace.root
        tree = bool(root.children or root.scores or any(f.tone == "decision" for f in root.display))
    if tree:
        from gaji.cli.render_tree import render_tree

        con.print(render_tree(trace))
        con.print()
    con.print(f"[bold]Answer:[/bold] {trace.answer or '(no answer)'}")
    if trace.explanation and trace.explanation != trace.answer:
        con.print(f"[bold]Because:[/bold] {trace.explanation}", highlight=False)
    if trace.status != "ok":
        con.print(f"[red]status {trace.status}: {trace.error}[/red]")
    if trace.citations:
        con.print("[bold]Sources:[/bold]")
        for pid in trace.citations:
            p = trace.passages.get(pid)
            snippet = (p.text[:110] + "…") if p and len(p.text) > 110 else (p.text if p else "")
            where = format_location(p)
            where = f"  [cyan]({escape(where)})[/cyan]" if where else ""
            con.print(f"  - {pid}{where}  [dim]{p.title if p else ''}[/dim]  {snippet}", highlight=False)
    ran = trace.method + (f" ({trace.recipe})" if trace.recipe else "")
    con.print(f"[dim]{ran} · {trace.model} · {cost_line(trace)}[/dim]", highlight=False)
    if len(trace.usage_by_purpose()) > 1:
        con.print(f"[dim]tokens by component: {component_line(trace)}[/dim]", highlight=False)


class AnswerPrinter:
    """Writes the answer's text as it comes; a new draft (the method answers again) goes on a new line."""

    def __init__(self, out: TextIO, label: str = "… "):
        self.out, self.label = out, label
        self.draft = 0
        self.first_at: float | None = None

    def __call__(self, piece: AnswerDelta) -> None:
        if self.first_at is None:
            self.first_at = time.perf_counter()
        if piece.draft != self.draft:
            self.out.write(("\n↻ " if self.draft else self.label))
            self.draft = piece.draft
        self.out.write(piece.text)
        self.out.flush()

    def close(self) -> None:
        if self.draft:
            self.out.write("\n\n")
            self.out.flush()


def _vectors_note(g, trace: Trace) -> str | None:
    """While the index's vectors are being computed, the run searched with BM25: say so."""
    if trace.retriever != "bm25" or g.given_retriever is not None or g.index is None:
        return None
    from gaji.index.pending import BM25UntilVectors, vectors_note

    return vectors_note(g.index) if isinstance(g.retriever(), BM25UntilVectors) else None


def method_or_recipe(method: str | None, recipe: str | None) -> str | None:
    """What to ask with: --recipe (checked against --method when both are given), else --method."""
    if not recipe:
        return method
    r = recipes.get(recipes.parse_ref(recipe)[0])
    if method and method not in (r.method, r.name):
        raise ConfigError(f"--recipe {recipe} runs method {r.method!r}, not --method {method!r}")
    return recipe


def run(args) -> int:
    from gaji.api import Gaji

    s = settings_from_args(args)
    if getattr(args, "history_db", None):
        s.history_db = args.history_db
    stream = args.stream if args.stream is not None else (sys.stdout.isatty() and not args.json)
    conv = open_conversation(s, args.conversation) if args.conversation else None
    printer = AnswerPrinter(sys.stdout) if stream and not args.json else None
    g = Gaji(settings=s)
    t0 = time.perf_counter()
    try:
        options = parse_kv(args.opt)
        method = method_or_recipe(args.method, args.recipe)
        if args.effort:
            if (method or s.method) != "auto":
                raise ConfigError(f"--effort is an option of method auto, not of {method or s.method!r}")
            options.setdefault("effort", args.effort)
        trace = g.ask(args.question, method=method, options=options,
                      history=conv.turns if conv else None, on_answer=printer)
        note = _vectors_note(g, trace)
    finally:
        g.close()
        if printer is not None:
            printer.close()
    if note:
        print(f"note: {note}", file=sys.stderr)
    if conv is not None:
        conv.record(args.question, trace, (time.perf_counter() - t0) * 1000, s.index)
    if args.json:
        sys.stdout.write(trace.to_json(indent=2) + "\n")
    else:
        print_trace(trace, Console(), args.tree)
    if conv is not None:
        print(f"conversation {conv.id} (ask a follow-up with --conversation {conv.id})", file=sys.stderr)
    return 0 if trace.status == "ok" else 1


class StoredConversation:
    """A conversation in the history database, continued from the command line."""

    def __init__(self, store, cid: str, turns: list):
        self.store, self.id, self.turns = store, cid, turns

    def record(self, question: str, trace: Trace, latency_ms: float, index: str | None) -> None:
        from gaji.history.store import QuestionRecord, new_id

        try:
            self.store.start_conversation(CLI_CLIENT, title=question, id=self.id)
            self.store.record(QuestionRecord.from_trace(trace, id=new_id(), conversation_id=self.id, question=question,
                                                        latency_ms=latency_ms, index=index, client=CLI_CLIENT,
                                                        endpoint="cli"))
        finally:
            self.store.close()


def open_conversation(settings, which: str) -> StoredConversation:
    from gaji.history import history_spec
    from gaji.history.store import HistoryStore, new_id

    spec = history_spec(settings)
    if spec is None:
        raise ConfigError("--conversation needs the history database, but history_db is off")
    store = HistoryStore.open(spec)
    if which == "new":
        return StoredConversation(store, new_id(), [])
    if store.conversation(which) is None:
        store.close()
        raise ConfigError(f"--conversation {which}: no such conversation in {store.describe()} "
                          "(`gaji history list` shows them; `--conversation new` starts one)")
    return StoredConversation(store, which, store.turns(which))
