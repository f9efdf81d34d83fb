"""Chunk knowledge generation (paper 001): titles and candidate questions per chunk at index time,
passage compositions (Table 7 cases), and BIO keyword extraction from queries.

    generator.py    LLM expansion of chunks (resumable, batched over parallel slots)    -> Expansion
    compose.py      the seven passage compositions (case1..case7)
    index_hook.py   how `gaji index build --expand/--expansions/--compose` uses the two above
    keywords.py     BIO tagging (KB/KI/O) over Kiwi morphemes; LLM teacher labels
    tagger.py       the small trained tagger (token-classification head on multilingual-e5-small)
"""
from .compose import CASES, DEFAULT_CASE, compose
from .generator import Expander, Expansion, ExpansionStore

__all__ = ["CASES", "DEFAULT_CASE", "compose", "Expander", "Expansion", "ExpansionStore"]
