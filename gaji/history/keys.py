"""Named API keys, one per client, kept in the history database.

    gaji keys add alice        # prints the key once: gaji-3f2a9c1d04e5b6a7.Jx9…
    gaji keys list
    gaji keys revoke alice     # refused from the next request on, no restart

A key is `gaji-<id>.<secret>`. Only the id, a random per-key salt and HMAC-SHA256(salt, secret) are
stored, so the database never holds a usable key. Checking a key looks its id up and compares the
HMAC in constant time; a revoked key is found revoked on the next request. The key's name is what
the history records as the question's client.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from gaji.errors import ConfigError
from gaji.history.db import Database
from gaji.history.migrations import now_iso

PREFIX = "gaji-"
_KEY = re.compile(r"^gaji-([0-9a-f]{16})\.([A-Za-z0-9_-]{20,100})$")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


@dataclass
class KeyInfo:
    id: str
    name: str
    created_at: str
    revoked_at: str | None = None
    last_used_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _digest(salt: str, secret: str) -> str:
    return hmac.new(bytes.fromhex(salt), secret.encode("utf-8"), hashlib.sha256).hexdigest()


class KeyStore:
    def __init__(self, db: Database):
        self.db = db

    def add(self, name: str) -> tuple[KeyInfo, str]:
        """A new key for client `name`: (its record, the key itself, shown this once)."""
        if not NAME_RE.match(name or ""):
            raise ConfigError(f"key name {name!r}: use letters, digits and _ . @ - (at most 64, starting with a "
                              "letter or digit)")
        if any(k.name == name and k.active for k in self.list()):
            raise ConfigError(f"there is already an active key named {name!r}: revoke it first (gaji keys revoke "
                              f"{name}) or choose another name")
        kid, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_hex(16)
        info = KeyInfo(id=kid, name=name, created_at=now_iso())
        self.db.run("INSERT INTO api_keys (id, name, salt, hash, created_at) VALUES (:id, :name, :salt, :hash, :t)",
                    id=kid, name=name, salt=salt, hash=_digest(salt, secret), t=info.created_at)
        return info, f"{PREFIX}{kid}.{secret}"

    def list(self) -> list[KeyInfo]:
        rows = self.db.run("SELECT id, name, created_at, revoked_at, last_used_at FROM api_keys "
                           "ORDER BY created_at")
        return [KeyInfo(*r) for r in rows]

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
        m = _KEY.match(key or "")
        if not m:
            return None
        kid, secret = m.groups()
        rows = self.db.run("SELECT name, salt, hash, revoked_at FROM api_keys WHERE id = :id", id=kid)
        if not rows:
            return None
        name, salt, digest, revoked = rows[0]
        if revoked is not None or not hmac.compare_digest(_digest(salt, secret), digest):
            return None
        self.db.run("UPDATE api_keys SET last_used_at = :t WHERE id = :id", t=now_iso(), id=kid)
        return name
