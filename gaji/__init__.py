"""gaji (가지): tree-of-question retrieval and multi-hop QA over your own documents."""
__version__ = "0.1.0"
