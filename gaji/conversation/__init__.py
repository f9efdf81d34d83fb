"""Conversations: a follow-up question answered in the light of the turns before it.

    turns.py     Turn (one question and its answer), the history a follow-up is asked after
    rewrite.py   the follow-up rewritten into a standalone question (an LLM call, a "rewrite" node of the trace)
    prompts.py   the rewrite prompt, English and Korean

`Gaji.ask(question, history=[Turn…])` rewrites, then runs the method on the standalone question; the
HTTP service, the chat endpoint and `gaji ask --conversation` all come through there.
"""
