"""Question sets by name: the shared benchmark sets (`gaji.eval.datasets`) and gaji's own sets that ship
inside the package (`gaji.eval.komultihop`: komultihop, komultihop-dev, komultihop-report).

This is the one entry point the commands use, so that the generic loaders never need to know the sets built
on top of them (komultihop reads its paragraphs through `gaji.eval.datasets`).
"""
from __future__ import annotations

from pathlib import Path

from gaji.eval import datasets, komultihop
from gaji.eval.datasets import Dataset


def known_names() -> list[str]:
    return sorted([*datasets.known_names(), *komultihop.PARTS])


def load_dataset(name_or_path: str) -> Dataset:
    """A set by name (shared or our own) or a question file; an unknown name lists every known one."""
    if komultihop.is_part_name(name_or_path) and not Path(name_or_path).expanduser().is_file():
        return komultihop.load_part(name_or_path)
    return datasets.load_dataset(name_or_path, known=known_names())
