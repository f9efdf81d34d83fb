"""The Retriever contract's former import path, kept for code written against it (docs/extending.md named it).
The contract is `gaji.types.Retriever`; the retrievers are in gaji/retrieve/."""
from gaji.types import Retriever

__all__ = ["Retriever"]
