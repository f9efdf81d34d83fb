"""How methods word their nodes for people: the pieces `Method.describe` is made of.

A method describes each node as `Fact`s (label, text, tone) in the trace's language; `Method.run` and
`RunContext.emit` store them in `Node.display`, so a finished trace, its JSON and the live events all
carry them. The CLI tree (gaji/cli/render_tree.py) and the web page (gaji/serve/static/app.js) show
those lines and the typed Node fields only: they know no method, no method's `data` keys.

    >>> from gaji.types import Node, Stop
    >>> stop_facts(Node(stop=Stop(True, reason="max depth")), "en")
    [Fact(label='stop', text='max depth', tone='decision')]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gaji.types import Fact, Node, Stop


def word(lang: str, en: str, ko: str) -> str:
    """A label in the trace's language (Korean for "ko", else English)."""
    return ko if lang == "ko" else en


@dataclass
class Facts:
    """A node's description as it is written: labels given in English and Korean, the one of the trace's
    language kept; a line whose value is missing (None, empty, False) is left out.

        f = Facts(lang).tag("step", "단계", d.get("step"), f"#{d.get('step')}")
        f.decision("stop", "멈춤", d.get("stop_reason"))
        return f.lines
    """

    lang: str
    lines: list[Fact] = field(default_factory=list)

    def add(self, tone: str, en: str, ko: str, value: Any, text: Any = None) -> "Facts":
        """A line `label: text` (text defaults to the value itself) when the value is there."""
        if value is not None and value is not False and value != "" and value != []:
            self.lines.append(Fact(word(self.lang, en, ko), str(value if text is None else text), tone))
        return self

    def tag(self, en: str, ko: str, value: Any, text: Any = None) -> "Facts":
        """A short mark for the node's heading line ("#2", "bridging")."""
        return self.add("tag", en, ko, value, text)

    def decision(self, en: str, ko: str, value: Any, text: Any = None) -> "Facts":
        """Why the method went on, stopped or skipped at this node."""
        return self.add("decision", en, ko, value, text)

    def note(self, en: str, ko: str, value: Any, text: Any = None) -> "Facts":
        return self.add("note", en, ko, value, text)


def stop_text(stop: Stop) -> str:
    """The Stop in words: its reason (else who decided), with the deciding score."""
    text = stop.reason or (stop.by if stop.stop else "")
    if stop.score is not None and str(stop.score) not in text:
        text = f"{text} (score {stop.score})" if text else f"score {stop.score}"
    return text


def stop_facts(node: Node, lang: str) -> list[Fact]:
    """The node's Stop as one decision line; nothing when there is nothing to say (no Stop, or a
    policy that let the chain go on without a reason or score)."""
    if node.stop is None:
        return []
    text = stop_text(node.stop)
    if not text:
        return []
    label = word(lang, "stop", "멈춤") if node.stop.stop else word(lang, "go on", "계속")
    return [Fact(label, text, "decision")]


def trim_facts(node: Node, lang: str) -> list[Fact]:
    """A note for each of the node's calls whose prompt was cut to fit the model's context (LLMCall.trim),
    for every method alike."""
    from gaji.llm.fit import Trim

    out = []
    for c in node.calls:
        if c.trim:
            t = Trim(**{k: v for k, v in c.trim.items() if k in Trim.__dataclass_fields__})
            out.append(Fact(word(lang, "context", "컨텍스트"), f"{c.purpose}: {t.describe()}", "note"))
    return out


def reask_facts(node: Node, lang: str) -> list[Fact]:
    """The node's re-ask (an answer of the wrong shape asked about once more, gaji.methods.reask), for every method
    alike."""
    from gaji.methods.reask import reask_text

    again = node.data.get("reask")
    return Facts(lang).decision("asked again", "다시 물음", again, reask_text(again, lang)).lines


def display(describe: Any, node: Node, lang: str) -> list[Fact]:
    """A node's display lines: its method's description, then what every method shares (context trims, re-asks)."""
    return list(describe(node, lang)) + trim_facts(node, lang) + reask_facts(node, lang)
