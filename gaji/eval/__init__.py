"""The evaluation harness (`gaji eval`):

- `datasets`  question sets: gaji JSONL, KorQuAD/SQuAD JSON, HotpotQA/2Wiki JSON, MuSiQue JSONL
- `metrics`   EM/F1 (English and Korean normalisation), recall@k/Top@k, ROUGE-L, cost (ATC)
- `judge`     LLM-judge pass/fail of retrieved chunks (paper 001, A.4)
- `toq_eval`  ToQ query-evaluator scores (S.Coh, Ans., O.Ass, R.Val)
- `runner`    runs a method over a set: resumable, concurrent, run.json / results.jsonl / traces.jsonl
- `record`    run.json: what was run, its fingerprint and sittings; the resume state
- `scoring`   one question's result line: answer, retrieval, cost and judge metrics
- `corpus_index` a dataset's own corpus indexed once and cached
- `display`   the progress bar and the summary table
- `summary`   aggregation and display of metrics
- `compare`   `gaji eval compare`: runs side by side, markdown + plots
"""
