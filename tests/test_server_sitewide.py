"""The site's limits counted over every process (quintet.server.sitewide), without Redis:
two tallies exchange what they publish as ClusterHub.sync_tally would."""

from __future__ import annotations

from collections import Counter

import pytest

from quintet.server.security import Buckets
from quintet.server.sitewide import SiteTally


def _pair() -> tuple[SiteTally, SiteTally, Counter[str], Counter[str]]:
    a, b = SiteTally(), SiteTally()
    conns_a: Counter[str] = Counter()
    conns_b: Counter[str] = Counter()
    for t, c in ((a, conns_a), (b, conns_b)):
        t.set_salt(b"site salt")
        t.count("connections", lambda c=c: c)  # type: ignore[misc]
    return a, b, conns_a, conns_b


def test_a_tally_adds_the_other_processes_counts() -> None:
    a, b, conns_a, _ = _pair()
    conns_a["198.51.100.7"] = 3
    b.absorb({"proc-a": a.snapshot()})
    assert b.others("connections", "198.51.100.7") == 3
    assert b.others("connections", "198.51.100.8") == 0
    assert a.others("connections", "198.51.100.7") == 0  # its own are not "others"
    conns_a["198.51.100.7"] = 0
    b.absorb({"proc-a": a.snapshot()})
    assert b.others("connections", "198.51.100.7") == 0


def test_a_process_gone_counts_nothing() -> None:
    a, b, conns_a, _ = _pair()
    conns_a["198.51.100.7"] = 3
    b.absorb({"proc-a": a.snapshot()})
    b.absorb({})  # its key expired with its lease
    assert b.others("connections", "198.51.100.7") == 0


def test_the_published_keys_are_keyed_hashes_never_addresses() -> None:
    a, _, conns_a, _ = _pair()
    conns_a["198.51.100.7"] = 1
    fields = a.snapshot()
    assert fields and not any("198.51.100.7" in f for f in fields)
    other = SiteTally()
    other.set_salt(b"another site")
    assert other.hkey("198.51.100.7") != a.hkey("198.51.100.7")


def _rated() -> tuple[SiteTally, SiteTally, Buckets, Buckets]:
    a, b = SiteTally(), SiteTally()
    ba, bb = Buckets(rate=1e-6, burst=3), Buckets(rate=1e-6, burst=3)
    for t, bk in ((a, ba), (b, bb)):
        t.set_salt(b"site salt")
        t.rate("create", bk)
    return a, b, ba, bb


def test_tokens_taken_on_another_process_are_taken_here_too() -> None:
    a, b, ba, bb = _rated()
    b.absorb({"proc-a": a.snapshot()})  # b has seen a (nothing taken yet)
    for _ in range(3):
        assert ba.take("person:ann") == 0
    assert ba.take("person:ann") > 0  # a's own bucket is empty
    b.absorb({"proc-a": a.snapshot()})
    assert bb.take("person:ann") > 0  # and so is b's: the site's allowance is spent
    assert bb.take("person:bob") == 0
    b.absorb({"proc-a": a.snapshot()})  # the same totals again: nothing new to take
    assert bb.take("person:bob") == 0


def test_a_process_seen_first_brings_only_what_it_takes_afterwards() -> None:
    a, b, ba, bb = _rated()
    for _ in range(3):
        ba.take("person:ann")
    b.absorb({"proc-a": a.snapshot()})  # first sight: old totals are the baseline
    assert bb.take("person:ann") == 0
    ba.take("person:cy")
    b.absorb({"proc-a": a.snapshot()})
    bb.take("person:cy")
    bb.take("person:cy")
    assert bb.take("person:cy") > 0  # one there, two here: three of three


def test_a_running_total_started_again_counts_whole() -> None:
    a, b, ba, bb = _rated()
    b.absorb({"proc-a": a.snapshot()})
    ba.take("person:ann")
    ba.take("person:ann")
    b.absorb({"proc-a": a.snapshot()})
    assert ba.taken is not None
    ba.taken.clear()  # a started its totals again (too many keys)
    ba.take("person:ann")
    b.absorb({"proc-a": a.snapshot()})  # 1 < 2: a new total, all of it new
    assert bb.take("person:ann") > 0


def test_a_tallys_names_are_checked() -> None:
    t = SiteTally()
    t.count("connections", Counter)
    with pytest.raises(ValueError, match="names"):
        t.count("connections", Counter)
    with pytest.raises(ValueError, match="names"):
        t.rate("a|b", Buckets(1.0, 1.0))


def test_a_debit_keeps_the_clock_of_the_takes() -> None:
    # Sign-ups take with the accounts' clock (wall seconds): a debit must use the same.
    b = Buckets(rate=1.0, burst=2)
    b.clock = lambda: 1_000_000.0
    b.debit("k", 2)  # another process took both (a key new here)
    assert b.take("k", now=1_000_000.0) > 0  # nothing refilled, nothing lost
    assert b.take("k", now=1_000_001.0) == 0  # a second later, one token back
    assert b.take("k", now=1_000_001.0) > 0
