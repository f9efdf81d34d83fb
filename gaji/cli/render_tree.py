"""Render any method's Trace as a rich Tree: one branch per Node, with what it asked, searched,
read, answered and cost.

    from rich.console import Console
    Console().print(render_tree(trace))

Per node: level, kind and status; the question (slot-filled, with the original when it differs);
the search query; the retrieved passages (title, ✓ when judged relevant, with the extracted span);
the answer; evaluator scores; LLM calls, tokens and time. All text goes in as `rich.text.Text`,
never markup, so questions like "[ANS_1] price range" print as they are.
"""
from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

from gaji.types import Node, Trace

_STATUS = {"ok": ("✓", "green"), "failed": ("✗", "red"), "skipped": ("–", "dim"), "running": ("…", "yellow")}


def _clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 100 else f"{ms:.0f} ms"


def node_label(node: Node, trace: Trace, max_passages: int = 5, width: int = 160) -> Text:
    """The multi-line label of one node."""
    icon, colour = _STATUS.get(node.status, ("?", "yellow"))
    t = Text()
    t.append(f"{icon} ", style=colour)
    t.append(f"L{node.level} {node.kind}", style="bold cyan")
    if "index" in node.data:
        t.append(f" #{node.data['index']}", style="cyan")
    if node.data.get("type") and node.kind != "root":
        t.append(f" ({node.data['type']})", style="dim")
    if node.data.get("depends_on"):
        t.append(" needs " + ", ".join(f"#{d}" for d in node.data["depends_on"]), style="magenta")
    t.append("  ")
    shown = node.filled_question or node.question
    t.append(_clip(shown, width), style="bold")
    if node.filled_question and node.filled_question != node.question:
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
        s = node.scores
        parts = []
        if "semantic_coherence" in s:
            parts.append(f"coherence {s['semantic_coherence']}")
        if "answerability" in s:
            parts.append(f"answerability {s['answerability']}%")
        if "overall" in s:
            parts.append(f"overall {s['overall']}")
        if "response_validity" in s:
            parts.append("valid ✓" if s["response_validity"] else "valid ✗")
        parts += [f"{k} {v}" for k, v in s.items()
                  if k not in ("semantic_coherence", "answerability", "overall", "response_validity")]
        t.append("\n  scores: " + " · ".join(parts), style="yellow")
    split = node.data.get("decomposition")
    if split:  # ToQ: how the node was split (and why it was not), with the routed decomposer's decision
        route = node.data.get("route") or {}
        line = f"\n  split: {split}"
        if route:
            line += f" (router: {route.get('shape')}, p_compare {route.get('p_compare')}; {route.get('prompt')} prompt)"
        if node.data.get("stop"):
            line += f" · stop: {node.data['stop']}"
        t.append(line, style="magenta")
    elif node.data.get("stop"):  # not split at all: why (ToQ's evaluator accepted the answer, max depth)
        t.append(f"\n  stop: {node.data['stop']}", style="magenta")
    verdict = node.data.get("verdict")
    if isinstance(verdict, str):  # ConTReGen: why a proposed sub-question was kept or skipped
        line = f"\n  verdict: {verdict}"
        if node.data.get("reason"):
            line += f" — {_clip(str(node.data['reason']), width)}"
        if node.data.get("topic_cos") is not None:
            line += f" · topic cosine {node.data['topic_cos']}"
        t.append(line, style="dim" if node.status == "skipped" else "magenta")
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
    """A rich Tree of the whole trace: a header (method, model, answer, citations, usage), then the nodes."""
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
