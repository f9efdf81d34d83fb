"""`python -m gaji.cli.llamacpp_server`: llama.cpp's OpenAI-compatible HTTP server as its own process on 127.0.0.1
(gaji/llm/llamacpp_server.py; started by `LlamaCppServerProcess`, or by hand for `--llm openai:MODEL --base-url`).

    python -m gaji.cli.llamacpp_server --model local:small --parallel 4 --threads 2 [--port 8080]
    # prints "listening http://127.0.0.1:PORT" once the model is loaded, serves until SIGTERM / Ctrl-C
"""
from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gaji.cli.llamacpp_server")
    ap.add_argument("--model", default="local:small", help="local | local:small | a GGUF path")
    ap.add_argument("--parallel", type=int, default=4, help="slots (requests decoded together)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ctx-size", type=int, default=8192, help="total context, shared by the slots")
    ap.add_argument("--port", type=int, default=0, help="0 = a free port")
    args = ap.parse_args(argv)
    from gaji.llm.llamacpp_server import serve

    serve(args.model, parallel=args.parallel, threads=args.threads, ctx_size=args.ctx_size, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
