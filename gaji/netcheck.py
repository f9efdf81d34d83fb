"""Is a server there at all? One bounded TCP connect, before a client library is handed the address.

    why = unreachable("127.0.0.1", 19530)     # None when something listens, else "connection refused", ...

Client libraries wait a long time for a server that is down (pymilvus 60 s, the Ray client 30 s, a Ray
driver on a stale address minutes); this check answers in at most `timeout_s`, so a wrong URL or a
stopped server becomes a one-line error that names the address instead of a hang.
"""
from __future__ import annotations

import socket

__all__ = ["CONNECT_TIMEOUT_S", "unreachable"]

CONNECT_TIMEOUT_S = 3.0


def unreachable(host: str, port: int, timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """None when a TCP connection to host:port opens within `timeout_s`, else a short reason."""
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except (TimeoutError, socket.timeout):
        return f"no answer within {timeout_s:g} s"
    except socket.gaierror as e:
        return f"unknown host ({e.strerror or e})"
    except OSError as e:
        return (e.strerror or str(e) or type(e).__name__).lower()
