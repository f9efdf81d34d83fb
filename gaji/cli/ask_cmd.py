"""`gaji ask "question" --index DIR [--method M] [-o key=value] [--json] [--tree]`."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape

from gaji.cli.common import add_settings_flags, parse_kv, settings_from_args
from gaji.registry import fill_display
from gaji.types import Trace, format_location


def register(sub) -> None:
    p = sub.add_parser("ask", help="answer a question over an index")
    p.add_argument("question", help="the question (Korean or English)")
    p.add_argument("--method", "-m", help="method name (see `gaji methods`); default: from settings, auto")
    p.add_argument("-o", "--opt", action="append", metavar="KEY=VALUE", help="method option, repeatable")
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    p.add_argument("--tree", action=__import__("argparse").BooleanOptionalAction, default=None,
                   help="show the method's tree (default: on when the method built one)")
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
    con.print(f"[dim]{trace.method} · {trace.model} · {cost_line(trace)}[/dim]", highlight=False)
    if len(trace.usage_by_purpose()) > 1:
        con.print(f"[dim]tokens by component: {component_line(trace)}[/dim]", highlight=False)


def _vectors_note(g, trace: Trace) -> str | None:
    """While the index's vectors are being computed, the run searched with BM25: say so."""
    if trace.retriever != "bm25" or g.given_retriever is not None or g.index is None:
        return None
    from gaji.index.pending import BM25UntilVectors, vectors_note

    return vectors_note(g.index) if isinstance(g.retriever(), BM25UntilVectors) else None


def run(args) -> int:
    from gaji.api import Gaji

    s = settings_from_args(args)
    g = Gaji(settings=s)
    try:
        trace = g.ask(args.question, method=args.method, options=parse_kv(args.opt))
        note = _vectors_note(g, trace)
    finally:
        g.close()
    if note:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        sys.stdout.write(trace.to_json(indent=2) + "\n")
    else:
        print_trace(trace, Console(), args.tree)
    return 0 if trace.status == "ok" else 1
