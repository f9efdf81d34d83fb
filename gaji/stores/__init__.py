"""Vector databases for the dense index (Milvus, Qdrant), behind `gaji.registry.DENSE_STORES`.

See gaji/stores/base.py for the store contract and URLs, docs/deploy.md for running them."""
