"""`gaji keys add NAME | list | revoke NAME`: named API keys for `gaji serve`, one per client.

Keys live (hashed) in the history database (the `history_db` setting); a running server sees a new
or revoked key on the next request, without a restart. The key's name is recorded with every
question its client asks. `GAJI_API_KEY` keeps working beside them (client "default").
"""
from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from gaji.cli.history_cmd import add_db_flag, open_store


def register(sub) -> None:
    p = sub.add_parser("keys", help="named API keys for gaji serve (one per client; revocable without a restart)")
    ksub = p.add_subparsers(dest="keys_action", metavar="ACTION")
    a = ksub.add_parser("add", help="make a key for a client and print it (once)")
    a.add_argument("name", help="the client's name (recorded with its questions)")
    add_db_flag(a)
    a.set_defaults(func=run_add)
    ls = ksub.add_parser("list", help="the keys: name, created, last used, revoked")
    add_db_flag(ls)
    ls.set_defaults(func=run_list)
    r = ksub.add_parser("revoke", help="revoke a client's key (refused from the next request on)")
    r.add_argument("name", help="the key's name (or id)")
    add_db_flag(r)
    r.set_defaults(func=run_revoke)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])


def run_add(args: argparse.Namespace) -> int:
    from gaji.history.keys import KeyStore

    store = open_store(args)
    try:
        info, key = KeyStore(store.db).add(args.name)
    finally:
        store.close()
    print(key)
    print(f"key {info.id} for {info.name!r}: shown once, store it now. Send it as 'Authorization: Bearer KEY' "
          "(it is the OpenAI key of an OpenAI client).", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from gaji.history.keys import KeyStore

    store = open_store(args)
    try:
        keys = KeyStore(store.db).list()
    finally:
        store.close()
    t = Table()
    for col in ("name", "id", "created", "last used", "revoked"):
        t.add_column(col)
    for k in keys:
        t.add_row(k.name, k.id, k.created_at[:19], (k.last_used_at or "")[:19], (k.revoked_at or "")[:19])
    Console().print(t)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from gaji.history.keys import KeyStore

    store = open_store(args)
    try:
        n = KeyStore(store.db).revoke(args.name)
    finally:
        store.close()
    print(f"revoked {n} key(s) named {args.name!r}")
    return 0
