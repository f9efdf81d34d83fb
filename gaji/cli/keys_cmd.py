"""`gaji keys add NAME | list | scope NAME | revoke NAME`: named API keys for `gaji serve`, one per client.

    gaji keys add webui --read docs            # what a chat front end gets: ask, chat, search, history on docs
    gaji keys add ingest --write docs --rate 60
    gaji keys scope alice --read docs,manuals  # limit a key made before (it had full access)
    gaji keys scope alice --full               # or give it everything back

Keys live (hashed) in the history database (the `history_db` setting); a running server sees a new,
changed or revoked key on the next request, without a restart (a server that had no keys at all
notices the first within 2 s). The key's name is recorded with every question its client asks.
`GAJI_API_KEY` keeps working beside them (client "default", full access).
"""
from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from gaji.cli.flagtypes import count
from gaji.cli.history_cmd import add_db_flag, open_store
from gaji.errors import ConfigError


def register(sub) -> None:
    p = sub.add_parser("keys", help="named API keys for gaji serve (one per client; revocable without a restart)")
    ksub = p.add_subparsers(dest="keys_action", metavar="ACTION")
    a = ksub.add_parser("add", help="make a key for a client and print it (once)")
    a.add_argument("name", help="the client's name (recorded with its questions)")
    add_scope_flags(a)
    add_db_flag(a)
    a.set_defaults(func=run_add)
    ls = ksub.add_parser("list", help="the keys: name, scopes, rate limit, created, last used, revoked")
    add_db_flag(ls)
    ls.set_defaults(func=run_list)
    sc = ksub.add_parser("scope", help="change a key's scopes and rate limit (applies from its next request)")
    sc.add_argument("name", help="the key's name (or id)")
    add_scope_flags(sc)
    sc.add_argument("--full", action="store_true", help="every index, read and write (what keys made without "
                    "--read/--write have)")
    add_db_flag(sc)
    sc.set_defaults(func=run_scope)
    r = ksub.add_parser("revoke", help="revoke a client's key (refused from the next request on)")
    r.add_argument("name", help="the key's name (or id)")
    add_db_flag(r)
    r.set_defaults(func=run_revoke)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])


def add_scope_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--read", action="append", metavar="INDEX",
                   help="may ask, chat, search and see its history on INDEX (repeatable or a,b; * = every index)")
    p.add_argument("--write", action="append", metavar="INDEX",
                   help="may also upload, delete and sync documents of INDEX (repeatable or a,b; * = every index)")
    p.add_argument("--rate", type=count(1, 100_000), metavar="N", help="at most N requests a minute (default: no limit)")


def scopes_of(args: argparse.Namespace):
    """The scopes the flags give: None (full access) without --read/--write."""
    from gaji.history.keys import Scopes

    if getattr(args, "full", False):
        if args.read or args.write:
            raise ConfigError("--full gives every scope: leave out --read and --write")
        return Scopes.everything()
    if not args.read and not args.write:
        return None
    return Scopes.of(args.read, args.write)


def run_add(args: argparse.Namespace) -> int:
    from gaji.history.keys import KeyStore

    scopes = scopes_of(args)
    store = open_store(args)
    try:
        info, key = KeyStore(store.db).add(args.name, scopes, args.rate)
    finally:
        store.close()
    print(key)
    print(f"key {info.id} for {info.name!r} ({info.scopes.describe()}"
          f"{f', {info.rate_per_min} requests a minute' if info.rate_per_min else ''}): shown once, store it now. "
          "Send it as 'Authorization: Bearer KEY' (it is the OpenAI key of an OpenAI client).", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from gaji.history.keys import KeyStore

    store = open_store(args)
    try:
        keys = KeyStore(store.db).list()
    finally:
        store.close()
    t = Table()
    for col in ("name", "id", "scopes", "rate/min", "created", "last used", "revoked"):
        t.add_column(col)
    for k in keys:
        t.add_row(k.name, k.id, k.scopes.describe(), str(k.rate_per_min or ""), k.created_at[:19],
                  (k.last_used_at or "")[:19], (k.revoked_at or "")[:19])
    Console().print(t)
    return 0


def run_scope(args: argparse.Namespace) -> int:
    """New scopes and/or rate limit; what is not given stays as it was."""
    from gaji.history.keys import KeyStore

    scopes = scopes_of(args)
    if scopes is None and args.rate is None:
        raise ConfigError("say what to change: --read INDEX, --write INDEX, --full and/or --rate N")
    store = open_store(args)
    try:
        keys = KeyStore(store.db)
        current = [k for k in keys.list() if k.active and args.name in (k.name, k.id)]
        if not current:
            raise ConfigError(f"no active key named {args.name!r} (gaji keys list shows them)")
        scopes = scopes or current[0].scopes
        rate = args.rate if args.rate is not None else current[0].rate_per_min
        n = keys.set_scopes(args.name, scopes, rate)
    finally:
        store.close()
    print(f"{n} key(s) named {args.name!r}: {scopes.describe()}{f', {rate} requests a minute' if rate else ''}")
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
