"""Training the keyword tagger and the multi-task chunk model, and the Table 7 retrieval benchmark of chunk
expansion. The models themselves and their loaders are gaji's (gaji/expand/tagger.py, multitask.py)."""
