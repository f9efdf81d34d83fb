"""Tree-of-Question (ToQ), the flagship method: one module per component of the paper.

    decomposer.py       Question decomposer (Prompt B.2)       bridging / intersection / comparison / hybrid
    query_generator.py  Query generator f_QG (Prompt B.3)
    integrator.py       Answer integrator (Prompt B.1)         document relevance + span, [ANS_N] filling
    responder.py        Response generator f_RG(q, Q, D)
    evaluator.py        Query evaluator (Prompt B.4)           also used by the eval harness
    tree.py             slots, dependency waves, list answers (no LLM)
    prompts*.py         English and Korean prompts
    method.py           Algorithm 1 (`--method toq`)
"""
