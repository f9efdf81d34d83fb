"""Descriptions for a trace's nodes after the fact: a trace written before descriptions were stored, or built by
hand, gets each bare node described by the method the trace names. Apart from gaji.methods.describe because it
looks the method up in the registry, which the methods themselves (describe's users) never do."""
from __future__ import annotations

from gaji.methods.describe import display
from gaji.registry import METHODS
from gaji.types import Trace


def fill_display(trace: Trace) -> Trace:
    """Describe the nodes that carry no description yet with the method the trace names; nodes of an unknown
    method stay bare."""
    missing = [n for n in trace.root.walk() if not n.display]
    if missing and trace.method in METHODS:
        describe = METHODS.get(trace.method).describe
        for n in missing:
            n.display = display(describe, n, trace.lang)
    return trace
