"""`gaji serve --index [NAME=]DIR … [--host 127.0.0.1 --port 8000]`: the HTTP API and the web page.

The API key comes from the environment (`GAJI_API_KEY`), never from the command line (argv is
visible to every user of the machine); named keys (`gaji keys add NAME`) live in the history
database. Binding to anything but loopback without a key is refused unless `--insecure` says so.
The history (every question, its trace and feedback) goes to the `history_db` setting: default
$GAJI_HOME/history.sqlite3, a postgresql:// URL, or `off`.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from gaji.cli.common import add_settings_flags, settings_from_args
from gaji.cli.flagtypes import PORT, count, number, seconds
from gaji.coerce import MAX_K
from gaji.errors import ConfigError


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve the HTTP API and the web page over one or more indexes")
    p.add_argument("--index", dest="indexes", action="append", metavar="[NAME=]DIR",
                   help="an index directory, named NAME (default: the directory's name); repeatable")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=PORT, default=8000, help="port, 1 to 65535 (default 8000)")
    p.add_argument("--method", "-m", help="default method (default: from settings, auto)")
    p.add_argument("--retriever", help="default retriever: bm25 | dense | hybrid")
    p.add_argument("-k", "--k", type=count(1, MAX_K), dest="k", help=f"default passages per retrieval (1 to {MAX_K})")
    p.add_argument("--timeout", type=seconds(), default=300.0,
                   help="time limit per question in seconds, queue wait included (0.1 to 86400; default 300)")
    p.add_argument("--slots", type=count(1, 256), help="questions answered at once, 1 to 256 (default: the LLM's "
                   "parallel slots)")
    p.add_argument("--queue", type=count(0, 10_000), default=8,
                   help="questions that may wait for a slot before 503, 0 to 10000 (default 8)")
    p.add_argument("--max-upload-mb", type=number(0.01, 4096, "MiB"), default=8.0,
                   help="document upload size limit, 0.01 to 4096 (default 8 MiB)")
    p.add_argument("--max-body-kb", type=number(1, 1_048_576, "KiB"), default=64.0,
                   help="size limit of other request bodies, 1 to 1048576 (default 64 KiB)")
    p.add_argument("--cors-origin", action="append", metavar="ORIGIN",
                   help="allow cross-origin requests from this origin (repeatable; default: CORS off)")
    p.add_argument("--allowed-host", action="append", metavar="NAME",
                   help="also answer requests whose Host is NAME, e.g. a DNS name of this machine or a proxy's "
                        "(repeatable; also GAJI_ALLOWED_HOSTS=a,b; default: the --host address and loopback names)")
    p.add_argument("--insecure", action="store_true", help="allow a non-loopback --host without GAJI_API_KEY")
    p.add_argument("--history-db", dest="history_db", metavar="PATH|URL",
                   help="where questions and feedback are stored: a SQLite path, a postgresql:// URL, or off "
                   "(default $GAJI_HOME/history.sqlite3; env GAJI_HISTORY_DB)")
    p.add_argument("--chat-model", dest="chat_model", metavar="NAME",
                   help="what the model name 'gaji' means on /v1 (default gaji-<method>; env GAJI_CHAT_MODEL)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    add_settings_flags(p, index=False)
    p.set_defaults(func=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(bind: str, extra: list[str] | None, env: dict[str, str] | None = None) -> list[str]:
    """The Host names the server answers as: loopback names, the address it listens on (0.0.0.0 / :: mean
    any IP literal), `--allowed-host` entries and GAJI_ALLOWED_HOSTS (comma-separated)."""
    from gaji.serve.guard import LOOPBACK_NAMES

    env = os.environ if env is None else env
    from_env = [h.strip() for h in env.get("GAJI_ALLOWED_HOSTS", "").split(",") if h.strip()]
    return list(dict.fromkeys([*LOOPBACK_NAMES, bind, *(extra or []), *from_env]))


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from gaji.serve.app import ServeConfig, create_app
    except ModuleNotFoundError as e:
        raise ConfigError(f"gaji serve needs the 'serve' extra ({e.name} is missing): pip install 'gaji[serve]'") from None
    from gaji.api import Gaji
    from gaji.corpus.formats.limits import ReadLimits
    from gaji.history import history_spec
    from gaji.history.keys import KeyStore
    from gaji.history.store import HistoryStore
    from gaji.serve.indexes import IndexSet

    key = os.environ.get("GAJI_API_KEY") or None
    settings = settings_from_args(args)
    for name in ("history_db", "chat_model"):
        if getattr(args, name, None):
            setattr(settings, name, getattr(args, name))
    spec = history_spec(settings)
    history = HistoryStore.open(spec) if spec else None
    if not is_loopback(args.host) and key is None and not args.insecure and not (
            history is not None and KeyStore(history.db).has_active()):
        raise ConfigError(f"--host {args.host} is reachable from other machines: set GAJI_API_KEY or add a key "
                          "(gaji keys add NAME), or pass --insecure to serve without a key")
    print(f"loading LLM {settings.llm} …", file=sys.stderr, flush=True)
    backend = Gaji(settings=settings).backend  # one model, shared by every index
    indexes = IndexSet.from_specs(args.indexes or [], settings, backend)
    try:
        for name in indexes.names():  # open each index now: a bad one is an error at start, not per question
            g = indexes.gaji(name)
            print(f"opening index {name} …", file=sys.stderr, flush=True)
            g.retriever()
        cfg = ServeConfig(
            api_key=key,
            cors_origins=list(args.cors_origin or []),
            allowed_hosts=allowed_hosts(args.host, args.allowed_host),
            timeout_s=args.timeout,
            slots=args.slots,
            queue_max=args.queue,
            max_body_bytes=int(args.max_body_kb * 1024),
            max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
            default_method=settings.method,
            history=history,
            chat_model=settings.chat_model,
            read_limits=ReadLimits.from_options(settings.read_limits, "setting 'read_limits'"),
        )
        app = create_app(indexes, cfg)
        runner = app.state.runner
        print(
            f"gaji serve: http://{args.host}:{args.port}/  indexes: {', '.join(indexes.names()) or '(none)'}  "
            f"llm: {backend.name} ({runner.slots} slot(s), queue {runner.queue_max})  "
            f"auth: {auth_summary(key, history)}  CORS: {', '.join(cfg.cors_origins) or 'off'}  "
            f"hosts: {', '.join(h or '*' for h in cfg.allowed_hosts)}  "
            f"history: {history.describe() if history else 'off'}",
            file=sys.stderr, flush=True,
        )
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=5)
    finally:
        indexes.close()
        if history is not None:
            history.close()
    return 0


def auth_summary(key: str | None, history) -> str:
    from gaji.history.keys import KeyStore

    named = sum(1 for k in KeyStore(history.db).list() if k.active) if history is not None else 0
    parts = (["GAJI_API_KEY"] if key else []) + ([f"{named} named key(s)"] if named else [])
    return " + ".join(parts) or "off"
