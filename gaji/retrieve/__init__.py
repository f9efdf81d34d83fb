"""Every retriever gaji ships, one module each, all registered in `gaji.registry.RETRIEVERS` by name:

    bm25.py           bm25       tantivy BM25 over the index's analysed text
    dense.py          dense      multilingual-e5-small cosine (the index's exact numpy or faiss HNSW search)
    hybrid.py         hybrid     reciprocal-rank fusion of the two (fusion.py: the RRF itself)
    keyword_boost.py  bm25+kw, hybrid+kw                 the query's keywords boosted in BM25
    keyword_filter.py bm25+kwf, dense+kwf, hybrid+kwf     candidates filtered by the query's keywords
    contre.py         contre     the verified passages of a ConTReGen facet tree (asks the LLM)
    rows.py           index rows -> Passages, the step bm25, dense and hybrid share

The contract they meet is `gaji.types.Retriever` (search(query, k) -> list[Passage], best first). The index
(gaji/index/) stores and builds what they search -- the BM25 part, the vectors, the chunk rows -- and
`Index.retriever(name, **options)` makes one by its registered name.
"""
