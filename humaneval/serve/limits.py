"""A per-client limit on how fast new participants may start (slot exhaustion).

Every new participant reserves a slot until it times out, so a loop of ``start`` requests with
made-up Prolific IDs could take every place in a fraction of a second and turn real participants
away as ``study_full``. :class:`StartLimiter` is a token bucket per client address: ``burst``
new participants at once, then one more every ``every_s`` seconds. Resuming participants (a
reload, a new tab) never spend a token. Behind a reverse proxy the client address is the one the
proxy forwards in ``X-Forwarded-For`` (uvicorn trusts it from 127.0.0.1); see docs/serve.md. A
loopback address is never limited: it means a proxy that does not forward the address, and
limiting it would turn away every real participant behind it.
"""

from __future__ import annotations

import ipaddress
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class StartLimit:
    """At most ``burst`` new participants per client at once, then one every ``every_s`` seconds."""

    burst: int = 5
    every_s: float = 60.0

    @classmethod
    def parse(cls, text: str) -> StartLimit:
        """``"5/60"``: a burst of 5, then one per 60 seconds (``"0"`` or ``"off"``: no limit)."""
        from humaneval.errors import DesignError

        if text.strip().lower() in ("0", "off", "none"):
            return cls(burst=0, every_s=0.0)
        burst, _, every = text.partition("/")
        try:
            limit = cls(burst=int(burst), every_s=float(every or 60))
        except ValueError:
            limit = None
        if limit is None or limit.burst < 1 or not limit.every_s > 0:
            raise DesignError(
                f"start limit {text!r} must be BURST/SECONDS with whole BURST ≥ 1 and SECONDS > 0 "
                "(e.g. 5/60), or 'off'"
            )
        return limit

    @property
    def enabled(self) -> bool:
        return self.burst > 0


DEFAULT_LIMIT = StartLimit()


class StartLimiter:
    """Thread-safe token buckets keyed by client address."""

    def __init__(self, limit: StartLimit):
        self.limit = limit
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, client: str | None, now: float) -> float:
        """Spend one token of ``client`` and return 0, or the seconds until one is available."""
        if not self.limit.enabled or client is None or _loopback(client):
            return 0.0
        burst, every = self.limit.burst, self.limit.every_s
        with self._lock:
            tokens, then = self._buckets.get(client, (float(burst), now))
            tokens = min(float(burst), tokens + max(0.0, now - then) / every)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                return (1.0 - tokens) * every
            self._buckets[client] = (tokens - 1.0, now)
            if len(self._buckets) > 10_000:  # forget clients whose bucket has refilled
                self._buckets = {
                    k: v for k, v in self._buckets.items() if v[0] + (now - v[1]) / every < burst
                }
            return 0.0


def _loopback(client: str) -> bool:
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False
