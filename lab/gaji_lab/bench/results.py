"""Writing a benchmark's result pair: <out>/<stem>.json (the numbers) and <out>/<stem>.md (the table), atomically."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gaji.io import atomic_write_json, atomic_write_text


def save_result(out: str | Path, stem: str, res: dict[str, Any], md: str, show: bool = True) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    atomic_write_json(d / f"{stem}.json", res)
    atomic_write_text(d / f"{stem}.md", md)
    if show:
        print(md)
