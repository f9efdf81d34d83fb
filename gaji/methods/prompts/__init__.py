"""Prompt sets of the methods that fit in one module (gaji/llm/prompts.py describes the pattern): `common` (the
note said before retrieved passages), `direct` (NoR, OneR and the long-form writer), `cot` (the chain-of-thought
family: cot, ircot, iter_retgen), `self_ask`, `chain` (the CoRAG-style chain) and `reask`. ToQ and ConTReGen keep
theirs in their own packages (gaji/methods/toq/prompts.py, gaji/methods/contregen/prompts.py)."""
