#!/usr/bin/env bash
# vLLM-CPU's OpenAI-compatible server on 127.0.0.1 for the model folder made by gguf_to_hf.py.
#   VLLM_PYTHON=/work/venvs/vllm/bin/python deploy/vllm/serve.sh /work/venvs/qwen05-hf 18433
# then: gaji ask "..." --llm openai:qwen2.5-0.5b --base-url http://127.0.0.1:18433
set -euo pipefail
MODEL_DIR=${1:?model folder}
PORT=${2:-8000}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_TARGET_DEVICE=cpu VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
export VLLM_CPU_KVCACHE_SPACE=${VLLM_CPU_KVCACHE_SPACE:-2}   # GiB of KV cache
exec "${VLLM_PYTHON:-python}" -m vllm.entrypoints.openai.api_server --host 127.0.0.1 --port "$PORT" \
  --model "$MODEL_DIR" --served-model-name qwen2.5-0.5b --max-model-len 4096 --enforce-eager
