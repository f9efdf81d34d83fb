"""ConTReGen: context-driven tree-structured retrieval (ConTRe) and bottom-up long-form generation.

method.py (the method), tree.py (top-down planning and retrieval), planner.py, verifier.py,
synthesizer.py (bottom-up synthesis), prompts.py (en/ko), topic_gate.py. The tree as a retriever of its own
(ConTRe retrieval only, "contre") is gaji/retrieve/contre.py.
"""
