"""Render any method's Trace as a rich Tree: one branch per Node, with what it asked, searched,
read, answered and cost.

    from rich.console import Console
    Console().print(render_tree(trace))

Per node: level, kind and status; the question (slot-filled, with the original when it differs);
the search query; the retrieved passages (title, ✓ when judged relevant, with the extracted span);
the answer; evaluator scores; the lines the method described (Node.display: why it split, stopped or
skipped); LLM calls, tokens and time. Nothing here knows which method ran. All text goes in as
`rich.text.Text`, never markup, so questions like "[ANS_1] price range" print as they are.
"""
from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

from gaji.methods.trace_display import fill_display
from gaji.types import Node, Trace

_STATUS = {"ok": ("✓", "green"), "failed": ("✗", "red"), "skipped": ("–", "dim"), "running": ("…", "yellow"),
           "stopped": ("■", "yellow")}


def _clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 100 else f"{ms:.0f} ms"


def _score(v: object) -> str:
    if isinstance(v, bool):
        return "✓" if v else "✗"
    return str(v)


def node_label(node: Node, trace: Trace, max_passages: int = 5, width: int = 160) -> Text:
    """The multi-line label of one node: its typed fields, and the lines its method described
    (Node.display) -- tags on the heading line, decisions and notes below."""
    icon, colour = _STATUS.get(node.status, ("?", "yellow"))
    t = Text()
    t.append(f"{icon} ", style=colour)
    t.append(f"L{node.level} {node.kind}", style="bold cyan")
    for f in node.display:
        if f.tone == "tag":
            t.append(f" {f.text}", style="cyan")
    t.append("  ")
    # a node whose description words its filled question itself, under its own label (a follow-up's rewrite:
    # "rewritten as"), is headed by the question as asked, its input; else by the filled question
    filled_said = bool(node.filled_question) and any(
        f.tone != "tag" and f.text == node.filled_question for f in node.display)
    shown = node.question if filled_said else (node.filled_question or node.question)
    t.append(_clip(shown, width), style="bold")
    if not filled_said and node.filled_question and node.filled_question != node.question:
        t.append("\n  from: ", style="dim")
        t.append(_clip(node.question, width), style="dim")
    if node.query:
        t.append("\n  query: ", style="dim")
        t.append(_clip(node.query, width), style="blue")
    for pid in node.passage_ids[:max_passages]:
        p = trace.passages.get(pid)
        title = (p.title if p and p.title else pid) or pid
        rel = node.relevance.get(pid)
        t.append("\n  ")
        if rel is None:
            t.append("· ", style="dim")
        elif rel.get("relevant"):
            t.append("✓ ", style="green")
        else:
            t.append("✗ ", style="dim red")
        t.append(_clip(title, 60), style="green" if rel and rel.get("relevant") else "")
        if rel and rel.get("span"):
            t.append(" — " + _clip(str(rel["span"]), 80), style="italic")
    if len(node.passage_ids) > max_passages:
        t.append(f"\n  … {len(node.passage_ids) - max_passages} more passages", style="dim")
    if node.answer:
        t.append("\n  → ", style="bold green")
        t.append(_clip(node.answer, width), style="bold green")
    if node.scores:
        t.append("\n  scores: " + " · ".join(f"{k} {_score(v)}" for k, v in node.scores.items()), style="yellow")
    for f in node.display:
        if f.tone == "tag":
            continue
        style = "magenta" if f.tone == "decision" and node.status != "skipped" else "dim"
        t.append(f"\n  {f.label}: {_clip(f.text, width)}", style=style)
    if node.error:
        t.append("\n  error: ", style="red")
        t.append(_clip(node.error, width), style="red")
    calls = node.calls
    if calls or node.wall_ms:
        tokens_in = sum(c.prompt_tokens for c in calls)
        tokens_out = sum(c.completion_tokens for c in calls)
        cached = sum(c.cached_tokens for c in calls)
        failed = sum(1 for c in calls if not c.ok)
        line = f"\n  {len(calls)} call{'s' if len(calls) != 1 else ''} · {tokens_in}+{tokens_out} tokens"
        if cached:
            line += f" ({cached} cached)"
        if failed:
            line += f" · {failed} failed"
        line += f" · {_seconds(sum(c.wall_ms for c in calls))} LLM"
        if node.wall_ms:
            line += f" · {_seconds(node.wall_ms)} total"
        t.append(line, style="dim")
    return t


def _add(branch: Tree, node: Node, trace: Trace, max_passages: int) -> None:
    for child in node.children:
        sub = branch.add(node_label(child, trace, max_passages))
        _add(sub, child, trace, max_passages)


def render_tree(trace: Trace, max_passages: int = 5) -> Tree:
    """A rich Tree of the whole trace: a header (method, model, answer, citations, usage), then the nodes.
    Nodes without a description (a trace stored before descriptions were kept) are described first."""
    fill_display(trace)
    head = Text()
    head.append(f"{trace.method}", style="bold magenta")
    if trace.model:
        head.append(f" · {trace.model}", style="dim")
    if trace.retriever:
        head.append(f" · {trace.retriever}", style="dim")
    head.append("\n")
    head.append("answer: ", style="bold")
    head.append(trace.answer or "(none)", style="bold green" if trace.answer else "red")
    if trace.citations:
        titles = [trace.passages[c].title if c in trace.passages and trace.passages[c].title else c
                  for c in trace.citations]
        head.append("\ncited: " + "; ".join(_clip(x, 50) for x in titles), style="green")
    u = trace.usage()
    head.append(
        f"\n{u.calls} LLM calls · {u.prompt_tokens}+{u.completion_tokens} tokens · {_seconds(trace.wall_ms)}",
        style="dim",
    )
    if trace.status != "ok":
        head.append(f"\n{trace.status}: {trace.error or ''}", style="red")
    tree = Tree(head)
    root = tree.add(node_label(trace.root, trace, max_passages))
    _add(root, trace.root, trace, max_passages)
    return tree
