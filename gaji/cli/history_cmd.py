"""`gaji history list|show|export`: the questions the service answered, and their feedback.

    gaji history list [--conversation ID] [--client NAME] [--limit 20]
    gaji history show TRACE_ID            # the stored answer, its tree and its feedback
    gaji history export --out asked.jsonl [--feedback all|any|corrected|up|down]   # a question set for gaji eval

The database is the `history_db` setting (--history-db, GAJI_HISTORY_DB; default
$GAJI_HOME/history.sqlite3; a postgresql:// URL for a shared server).
"""
from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from gaji.cli.common import settings_from_args
from gaji.cli.flagtypes import count
from gaji.errors import ConfigError


def add_db_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--history-db", dest="history_db", metavar="PATH|URL",
                   help="the history database (default $GAJI_HOME/history.sqlite3; env GAJI_HISTORY_DB)")
    p.add_argument("--config", help="config file (.toml/.yaml); default ./gaji.toml if present")


def open_store(args: argparse.Namespace):
    from gaji.history import history_spec
    from gaji.history.store import HistoryStore

    s = settings_from_args(args)
    if getattr(args, "history_db", None):
        s.history_db = args.history_db
    spec = history_spec(s)
    if spec is None:
        raise ConfigError("the history is off (history_db = off): pass --history-db PATH|URL")
    return HistoryStore.open(spec)


def register(sub) -> None:
    p = sub.add_parser("history", help="questions the service answered, their feedback; export them for gaji eval")
    hsub = p.add_subparsers(dest="history_action", metavar="ACTION")
    ls = hsub.add_parser("list", help="the latest questions (newest first)")
    ls.add_argument("--conversation", help="only this conversation (oldest first)")
    ls.add_argument("--client", help="only this client's questions (an API key's name)")
    ls.add_argument("--limit", type=count(0), default=20, help="at most this many (default 20; 0 = all)")
    add_db_flag(ls)
    ls.set_defaults(func=run_list)
    sh = hsub.add_parser("show", help="one stored question: answer, tree, feedback")
    sh.add_argument("trace_id")
    add_db_flag(sh)
    sh.set_defaults(func=run_show)
    ex = hsub.add_parser("export", help="write the questions (and corrected answers) as a question set for gaji eval")
    ex.add_argument("--out", required=True, help="the JSONL file to write (gaji eval --data FILE)")
    ex.add_argument("--feedback", default="all", choices=["all", "any", "corrected", "up", "down"],
                    help="which questions: all answered ones (default), those with any feedback, with a corrected "
                    "answer, rated up or rated down")
    ex.add_argument("--client", help="only this client's questions")
    ex.add_argument("--limit", type=count(0), default=0, help="at most this many (oldest first; 0 = all)")
    add_db_flag(ex)
    ex.set_defaults(func=run_export)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])


def run_list(args: argparse.Namespace) -> int:
    store = open_store(args)
    try:
        recs = store.questions(conversation_id=args.conversation, client=args.client, limit=args.limit,
                               oldest_first=bool(args.conversation))
    finally:
        store.close()
    t = Table(show_lines=False)
    for col in ("when", "trace", "conversation", "turn", "question", "answer", "status", "ms", "tokens", "client",
                "feedback"):
        t.add_column(col, overflow="fold")
    for r in recs:
        fb = r.feedback
        t.add_row(r.created_at[:19], r.id[:12], r.conversation_id[:12], str(r.turn),
                  r.question + (f"\n→ {r.standalone}" if r.standalone and r.standalone != r.question else ""),
                  r.answer, r.status, f"{r.latency_ms:.0f}", str(r.prompt_tokens + r.completion_tokens),
                  r.client or "", (fb.rating + (f": {fb.correct_answer}" if fb.correct_answer else "")) if fb else "")
    Console().print(t)
    return 0


def run_show(args: argparse.Namespace) -> int:
    from gaji.cli.ask_cmd import print_trace
    from gaji.types import Trace

    store = open_store(args)
    try:
        rec = store.question(args.trace_id, trace=True)
    finally:
        store.close()
    if rec is None:
        raise ConfigError(f"no stored question with trace id {args.trace_id!r} (gaji history list shows them)")
    con = Console()
    con.print(f"[bold]{rec.question}[/bold]  [dim]{rec.created_at} · conversation {rec.conversation_id} turn {rec.turn}"
              f" · client {rec.client or '-'} · {rec.endpoint}[/dim]", highlight=False)
    if rec.trace:
        print_trace(Trace.from_dict(rec.trace), con)
    else:
        con.print(f"[red]{rec.status}: {rec.error}[/red]")
    if rec.feedback:
        fb = rec.feedback
        con.print(f"feedback: {fb.rating}" + (f" · correct answer: {fb.correct_answer}" if fb.correct_answer else "")
                  + (f" · {fb.comment}" if fb.comment else ""), highlight=False)
    return 0


def run_export(args: argparse.Namespace) -> int:
    from gaji.history.export import export_questions

    store = open_store(args)
    try:
        n = export_questions(store, args.out, which=args.feedback, client=args.client, limit=args.limit)
    finally:
        store.close()
    print(f"wrote {n} question(s) to {args.out} (gaji eval --data {args.out} --method …)")
    return 0
