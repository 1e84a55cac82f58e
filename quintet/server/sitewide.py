"""Limits counted over every process of a site, not each process's share.

A server process counts in memory what its limits bound: websockets by client address
(``--max-connections``), tables in play by creator (``--tables-per-client``), and token
buckets of rates (``--create-rate``, sign-ups). With several processes (``--redis``) a
client reaching several of them would get each one's allowance. A :class:`SiteTally`
puts the processes' counts together: each process publishes what it counts (live counts,
and the tokens each bucket has had taken, as running totals) and reads the others', once
every ``renew_seconds`` (:meth:`quintet.server.cluster.ClusterHub.sync_tally`), and its
checks add the others' counts to its own; the tokens the others took are taken from its
own buckets too. So a limit holds for the whole site, give or take what the other
processes counted in the last second.

Keys leave the process only as keyed hashes (:meth:`SiteTally.hkey`: HMAC-SHA256 with a
salt the site's processes share in Redis), never as addresses or person ids, and each
process's counts expire with it (they are written with the lease time). A single
process has a tally with no others: its checks are its own counts, as before.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Callable, Mapping

from quintet.server.security import Buckets

#: A published field: ``<name>|<hashed key>``.
SEP = "|"
#: A bucket's running totals are started again past this many keys (the others see the
#: totals drop and take the new ones as they are).
MAX_TAKEN_KEYS = 50_000


class SiteTally:
    """What this process counts for the site's limits, and what the others count."""

    def __init__(self) -> None:
        self.salt = b""
        self._counts: dict[str, Callable[[], Mapping[str, int]]] = {}
        self._buckets: dict[str, Buckets] = {}
        #: The other processes' counts: name -> hashed key -> their sum.
        self._others: dict[str, Counter[str]] = {}
        #: Each other process's last running total of a bucket's key: (proc, field) -> n.
        self._seen: dict[tuple[str, str], int] = {}
        self._procs: set[str] = set()  # the other processes seen at the last sync
        self.synced = False

    # ------------------------------------------------------------ what is counted

    def count(self, name: str, counts: Callable[[], Mapping[str, int]]) -> None:
        """Publish ``counts()`` (live counts by key) as ``name``: :meth:`others` sums the
        other processes' for a key."""
        self._check_name(name)
        self._counts[name] = counts

    def rate(self, name: str, buckets: Buckets) -> None:
        """Share ``buckets`` as ``name``: the tokens every process takes for a key are
        taken from every process's bucket for it."""
        self._check_name(name)
        buckets.keyer = self.hkey
        buckets.taken = Counter()
        self._buckets[name] = buckets

    def _check_name(self, name: str) -> None:
        if not name or SEP in name or name in self._counts or name in self._buckets:
            raise ValueError(f"a tally's names are new, non-empty and without {SEP!r}: {name!r}")

    def hkey(self, key: str) -> str:
        """Return ``key`` as published: a keyed hash (the salt is the site's)."""
        return hmac.new(self.salt, key.encode(), hashlib.sha256).hexdigest()[:24]

    def set_salt(self, salt: bytes) -> None:
        """Use the site's salt (set once, before any bucket holds a key)."""
        if salt != self.salt:
            self.salt = salt
            for b in self._buckets.values():
                b.clear()

    # ------------------------------------------------------------------ checks

    def others(self, name: str, key: str) -> int:
        """Return what the other processes count for ``key`` under ``name`` (0 alone)."""
        got = self._others.get(name)
        return got.get(self.hkey(key), 0) if got else 0

    # ------------------------------------------------------------ publishing

    def snapshot(self) -> dict[str, int]:
        """Return this process's fields to publish: ``name|hkey`` -> count or total."""
        out: dict[str, int] = {}
        for name, counts in self._counts.items():
            for key, n in counts().items():
                if n > 0:
                    out[f"{name}{SEP}{self.hkey(key)}"] = int(n)
        for name, b in self._buckets.items():
            taken = b.taken
            assert taken is not None
            if len(taken) > MAX_TAKEN_KEYS:
                taken.clear()
            for h, n in taken.items():
                out[f"{name}{SEP}{h}"] = n
        return out

    def absorb(self, others: Mapping[str, Mapping[str, int]]) -> None:
        """Take in the other processes' fields (by process id), as last published.

        Counts are summed; a bucket's running totals are compared with the last ones
        seen from that process, and what they grew by is taken from this process's
        bucket (a total that fell was started again: all of it is new).
        """
        sums: dict[str, Counter[str]] = {name: Counter() for name in self._counts}
        seen: dict[tuple[str, str], int] = {}
        for proc, fields in others.items():
            # A process seen for the first time: its totals so far are old news (taken
            # before this process looked), the baseline of what it takes from now on.
            new = proc not in self._procs
            for field, n in fields.items():
                name, _, h = field.partition(SEP)
                if name in sums:
                    sums[name][h] += n
                elif name in self._buckets:
                    last = self._seen.get((proc, field), 0)
                    grew = n - last if n >= last else n
                    seen[(proc, field)] = n
                    if grew > 0 and not new:
                        self._buckets[name].debit(h, grew)
        self._procs = set(others)
        self._seen = seen
        self._others = sums
        self.synced = True


__all__ = ["SiteTally"]
