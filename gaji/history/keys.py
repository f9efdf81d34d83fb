"""Named API keys, one per client, kept in the history database.

    gaji keys add alice                    # prints the key once: gaji-3f2a9c1d04e5b6a7.Jx9…
    gaji keys add webui --read docs        # a chat front end: ask, chat, search and history on `docs` only
    gaji keys add ingest --write docs --rate 30   # upload, delete and sync on `docs`, 30 requests a minute
    gaji keys list                         # with each key's scopes
    gaji keys revoke alice                 # refused from the next request on, no restart

A key is `gaji-<id>.<secret>`. Only the id, a random per-key salt and HMAC-SHA256(salt, secret) are
stored, so the database never holds a usable key. Checking a key looks its id up and compares the
HMAC in constant time; a revoked key is found revoked on the next request. The key's name is what
the history records as the question's client.

Scopes: a key reads (ask, chat, search, its history) and/or writes (upload, delete, sync) the indexes
it names; `*` names every index, and write includes read. A key with no scopes stored (every key made
before scopes existed, or made without --read/--write) has full access until its scopes are set.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass, field

from gaji.errors import ConfigError
from gaji.history.db import Database
from gaji.history.migrations import now_iso

PREFIX = "gaji-"
_KEY = re.compile(r"^gaji-([0-9a-f]{16})\.([A-Za-z0-9_-]{20,100})$")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


ALL = "*"
KINDS = ("read", "write")
INDEX_RE = re.compile(r"^(\*|[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$")


@dataclass(frozen=True)
class Scopes:
    """What a key may do: `read` and `write` name indexes ("*": all). `full`: everything (no scopes set)."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    full: bool = False

    @classmethod
    def everything(cls) -> "Scopes":
        return cls(full=True)

    @classmethod
    def of(cls, read: list[str] | None = None, write: list[str] | None = None) -> "Scopes":
        """Checked scopes from `--read`/`--write` values (a value may list several: "docs,manuals")."""
        out: dict[str, tuple[str, ...]] = {}
        for kind, names in (("read", read), ("write", write)):
            parts = [p.strip() for n in names or [] for p in n.split(",") if p.strip()]
            for p in parts:
                if not INDEX_RE.match(p):
                    raise ConfigError(f"--{kind} {p!r}: an index name (letters, digits, _ . -) or * for every index")
            out[kind] = tuple(dict.fromkeys(parts))
        if not out["read"] and not out["write"]:
            raise ConfigError("a scoped key needs at least one --read INDEX or --write INDEX")
        return cls(read=out["read"], write=out["write"])

    def allows(self, kind: str, index: str | None) -> bool:
        """May the key do `kind` (read | write) on `index`? index None: on at least one index."""
        if self.full:
            return True
        names = self.write if kind == "write" else self.read + self.write  # write includes read
        if index is None:
            return bool(names)
        return ALL in names or index in names

    def to_json(self) -> str | None:
        return None if self.full else json.dumps({"read": list(self.read), "write": list(self.write)})

    @classmethod
    def from_json(cls, text: str | None) -> "Scopes":
        if text is None:
            return cls.everything()
        d = json.loads(text)
        return cls(read=tuple(d.get("read") or ()), write=tuple(d.get("write") or ()))

    def describe(self) -> str:
        if self.full:
            return "full access"
        parts = ([f"read {', '.join(self.read)}"] if self.read else []) + (
            [f"write {', '.join(self.write)}"] if self.write else [])
        return "; ".join(parts)


@dataclass
class KeyInfo:
    id: str
    name: str
    created_at: str
    revoked_at: str | None = None
    last_used_at: str | None = None
    scopes: Scopes = field(default_factory=Scopes.everything)
    rate_per_min: int | None = None  # requests a minute (None: no limit)

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _digest(salt: str, secret: str) -> str:
    return hmac.new(bytes.fromhex(salt), secret.encode("utf-8"), hashlib.sha256).hexdigest()


class KeyStore:
    def __init__(self, db: Database):
        self.db = db

    def add(self, name: str, scopes: Scopes | None = None, rate_per_min: int | None = None) -> tuple[KeyInfo, str]:
        """A new key for client `name` (full access unless `scopes`): (its record, the key, shown this once)."""
        if not NAME_RE.match(name or ""):
            raise ConfigError(f"key name {name!r}: use letters, digits and _ . @ - (at most 64, starting with a "
                              "letter or digit)")
        if any(k.name == name and k.active for k in self.list()):
            raise ConfigError(f"there is already an active key named {name!r}: revoke it first (gaji keys revoke "
                              f"{name}) or choose another name")
        kid, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_hex(16)
        _check_rate(rate_per_min)
        info = KeyInfo(id=kid, name=name, created_at=now_iso(), scopes=scopes or Scopes.everything(),
                       rate_per_min=rate_per_min)
        self.db.run("INSERT INTO api_keys (id, name, salt, hash, created_at, scopes, rate_per_min) "
                    "VALUES (:id, :name, :salt, :hash, :t, :scopes, :rate)", id=kid, name=name, salt=salt,
                    hash=_digest(salt, secret), t=info.created_at, scopes=info.scopes.to_json(), rate=rate_per_min)
        return info, f"{PREFIX}{kid}.{secret}"

    def list(self) -> list[KeyInfo]:
        rows = self.db.run("SELECT id, name, created_at, revoked_at, last_used_at, scopes, rate_per_min "
                           "FROM api_keys ORDER BY created_at")
        return [KeyInfo(*r[:5], scopes=Scopes.from_json(r[5]), rate_per_min=r[6]) for r in rows]

    def set_scopes(self, name: str, scopes: Scopes, rate_per_min: int | None = None) -> int:
        """Change the scopes (and rate limit) of the active key(s) named `name`; returns how many.
        The running server applies them from the next request on."""
        _check_rate(rate_per_min)
        active = [k for k in self.list() if k.active and name in (k.name, k.id)]
        if not active:
            raise ConfigError(f"no active key named {name!r} (gaji keys list shows them)")
        for k in active:
            self.db.run("UPDATE api_keys SET scopes = :s, rate_per_min = :r WHERE id = :id", s=scopes.to_json(),
                        r=rate_per_min, id=k.id)
        return len(active)

    def revoke(self, name: str) -> int:
        """Revoke the active key(s) named `name` (or the key with that id); returns how many."""
        active = [k for k in self.list() if k.active and name in (k.name, k.id)]
        if not active:
            raise ConfigError(f"no active key named {name!r} (gaji keys list shows them)")
        t = now_iso()
        for k in active:
            self.db.run("UPDATE api_keys SET revoked_at = :t WHERE id = :id", t=t, id=k.id)
        return len(active)

    def has_active(self) -> bool:
        return bool(self.db.run("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"))

    def check(self, key: str | None) -> str | None:
        """The client name of a valid, unrevoked key; None otherwise."""
        info = self.verify(key)
        return info.name if info is not None else None

    def verify(self, key: str | None) -> KeyInfo | None:
        """The record (name, scopes, rate limit) of a valid, unrevoked key; None otherwise."""
        m = _KEY.match(key or "")
        if not m:
            return None
        kid, secret = m.groups()
        rows = self.db.run("SELECT name, salt, hash, revoked_at, created_at, scopes, rate_per_min FROM api_keys "
                           "WHERE id = :id", id=kid)
        if not rows:
            return None
        name, salt, digest, revoked, created, scopes, rate = rows[0]
        if revoked is not None or not hmac.compare_digest(_digest(salt, secret), digest):
            return None
        t = now_iso()
        self.db.run("UPDATE api_keys SET last_used_at = :t WHERE id = :id", t=t, id=kid)
        return KeyInfo(id=kid, name=name, created_at=created, last_used_at=t, scopes=Scopes.from_json(scopes),
                       rate_per_min=rate)


def _check_rate(rate: int | None) -> None:
    if rate is not None and not 1 <= rate <= 100_000:
        raise ConfigError(f"--rate {rate}: requests per minute must be between 1 and 100000")
