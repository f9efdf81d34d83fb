"""Distributed batch work over Ray: sharded embedding for index builds, sharded `gaji eval`.

    gaji index build hotpotqa --out runs/hp --ray local --embed-workers 2
    gaji eval hotpotqa --method oner --ray local --workers 2
    gaji expand run koblex --out runs/kb.expansions.jsonl --llm local:small --ray local --workers 2

`cluster.py` connects (or starts a local cluster), `embed.py` is an Embedder whose passages are
embedded by Ray actors, `eval.py` runs an evaluation as shards and merges them, `expand.py` runs chunk
expansion as shards (one LLM per actor) and writes the expansions file as they come back. See docs/deploy.md.
"""
