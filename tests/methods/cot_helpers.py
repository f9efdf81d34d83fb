"""A fake model for chain-of-thought prompts: it always means to write one fixed text after the
prompt's last "A:" and returns what is still missing (as ScriptedLLM replies are cut at stop strings,
calls made sentence by sentence get the text piece by piece, like a real greedy model)."""
from __future__ import annotations

from gaji.llm.base import Request


def continuation(full: str, marker: str = "A:"):
    target = " ".join(full.split())

    def reply(req: Request) -> str:
        prompt = req.prompt or ""
        tail = " ".join(prompt[prompt.rindex(marker) + len(marker):].split())
        if not target.startswith(tail):
            if tail.startswith(target):  # the caller added a period to the end: the model ends the line
                return ""
            raise AssertionError(f"prompt tail {tail!r} is not a prefix of {target!r}")
        rest = target[len(tail):].strip()
        return " " + rest if rest else ""

    return reply


def continuations(*fulls: str, marker: str = "A:"):
    """One generation per chain: a prompt ending with a bare "A:" starts the next text of `fulls`."""
    state = {"i": -1}
    models = [continuation(f, marker) for f in fulls]

    def reply(req: Request) -> str:
        prompt = req.prompt or ""
        if not prompt[prompt.rindex(marker) + len(marker):].strip():
            state["i"] += 1
        return models[state["i"]](req)

    return reply
