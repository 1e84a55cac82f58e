"""The arena's report as text: points per deal per pair, per-bot means, whole matches."""

from __future__ import annotations

from collections.abc import Sequence

from quintet.arena.results import ArenaResult, PairResult, SeatingResult
from quintet.arena.seating import roles_of, seatings
from quintet.arena.stats import Summary, summarize
from quintet.games import GameInfo


def _signed(x: float | None, width: int = 8) -> str:
    return " " * (width - 1) + "-" if x is None else f"{x:+{width}.2f}"


def _ci(s: Summary) -> str:
    if s.low is None or s.high is None:
        return "(n < 2)"
    return f"[{s.low:+.2f}, {s.high:+.2f}]"


def team_against_team(pair: PairResult, info: GameInfo) -> Summary | None:
    """Return A's team less B's team, a seat, in the hands where one team against the
    lone player is both A's and the other both B's (per deal, the mean of such hands);
    None when the game has no teams against a lone player, or fewer than two deals
    have such a hand.

    Both teams face the same lone player and the same cards from him, so the difference
    is their play alone (Quintus base: the team with more card points scores more;
    bidding: it pays less or receives more), with far less noise than the deal's result.
    """
    return teams_compared([d.seatings for d in pair.deals], pair.a, pair.b, info)


def teams_compared(
    deals: Sequence[Sequence[SeatingResult]],
    a: str,
    b: str,
    info: GameInfo,
    lone: str | None = None,
) -> Summary | None:
    """Return :func:`team_against_team` over ``deals`` (each its seatings) for the
    players ``a`` and ``b``; with ``lone``, over the hands whose lone seat ``lone`` held."""
    per_deal = [t for t in (deal_teams(h, a, b, info, lone) for h in deals) if t is not None]
    return summarize(per_deal) if len(per_deal) >= 2 else None


def deal_teams(
    hands: Sequence[SeatingResult], a: str, b: str, info: GameInfo, lone: str | None = None
) -> float | None:
    """Return one deal's part of :func:`teams_compared`: the mean over its seatings
    (``hands``) with a team of ``a`` against a team of ``b`` of ``a``'s team less ``b``'s,
    a seat (with ``lone``, only where ``lone`` held the lone seat); None if it has none."""
    diffs = []
    for x in hands:
        solo = x.solo
        teams = info.teams_of(solo)
        if teams is None or solo is None or (lone is not None and x.players[solo] != lone):
            continue
        for mine, theirs in (teams, teams[::-1]):
            if {x.players[s] for s in mine} == {a} and {x.players[s] for s in theirs} == {b}:
                diffs.append(x.scores[mine[0]] - x.scores[theirs[0]])
    return sum(diffs) / len(diffs) if diffs else None


def format_table(result: ArenaResult) -> str:
    """Return the arena's report: points per deal per pair, games and rubbers, per-bot means."""
    cfg = result.config
    info, variant = cfg.game_info(), cfg.variant_info()
    roles = roles_of(info)
    count = len(seatings(info, variant, 0)[1])
    lines = [
        f"{info.title} {cfg.variant}: {cfg.deals} deals in duplicate ({count} seatings each), "
        + (
            f"{len(result.seeds)} runs merged (seeds {', '.join(map(str, result.seeds))}), "
            f"{result.elapsed:.1f} s played"
            if result.seeds
            else f"seed {cfg.seed}, {cfg.jobs} jobs{' on Ray' if cfg.backend == 'ray' else ''}, "
            f"{result.elapsed:.1f} s"
        ),
        "",
        "Points per deal, A minus B, with 95% confidence interval",
    ]
    wa = max([len("A"), *(len(p.a) for p in result.pairs)])
    wb = max([len("B"), *(len(p.b) for p in result.pairs)])
    lines.append(f"{'A':<{wa}}  {'B':<{wb}}  {'deals':>6}  {'A - B':>8}  {'95% CI':<20}  result")
    for p in result.pairs:
        s = p.summary
        verdict = f"{p.a if s.mean > 0 else p.b} better" if s.clear else "not clear"
        lines.append(
            f"{p.a:<{wa}}  {p.b:<{wb}}  {s.n:>6}  {_signed(s.mean)}  {_ci(s):<20}  {verdict}"
        )
    solo = roles.solo_label
    show_solo = roles.shows_solo(variant)
    unit = roles.score_unit
    lines += ["", f"Mean {unit} per seat and hand"]
    wl = max(len(s.label) for s in cfg.specs())
    wl = max(wl, len("bot"))
    head = f"{'pair':<{wa + wb + 4}}  {'bot':<{wl}}  {'hands':>6}  {'mean':>8}"
    lines.append(head + (f"  {solo:>10}  {'hands':>6}" if show_solo else ""))
    for p in result.pairs:
        pair = f"{p.a} vs {p.b}"
        for label, st in p.bots.items():
            row = f"{pair:<{wa + wb + 4}}  {label:<{wl}}  {st.hands:>6}  {st.mean:>8.2f}"
            if show_solo:
                sm = "-" if st.solo_mean is None else f"{st.solo_mean:.2f}"
                row += f"  {sm:>10}  {st.solo_hands:>6}"
            lines.append(row)
    versus = [(p, team_against_team(p, info)) for p in result.pairs]
    if any(t is not None for _, t in versus):
        lines += [
            "",
            "Team against team: a team of A's against a team of B's in one hand, A - B a seat",
        ]
        for p, tt in versus:
            if tt is not None:
                pair = f"{p.a} vs {p.b}"
                lines.append(
                    f"{pair:<{wa + wb + 4}}  {tt.n:>6} deals  {_signed(tt.mean)}  {_ci(tt)}"
                )
    if any(p.matches for p in result.pairs):
        kind = roles.matches.name(variant) if roles.matches else "matches"
        target = getattr(cfg.match_rules(), "target", None)
        lines += [
            "",
            f"Whole {kind}: {cfg.rubbers} duplicate pairs per pair of bots "
            f"({2 * (cfg.rubbers or 0)} {kind}), target {target}",
        ]
        dummy = variant.lone_seat  # a dummy game: no rubbers
        head = f"{'pair':<{wa + wb + 4}}  {'bot':<{wl}}  {'games won':>9}"
        lines.append(head + ("" if dummy else f"  {'rubbers won':>11}") + f"  {'points/match':>12}")
        for p in result.pairs:
            pair = f"{p.a} vs {p.b}"
            for label, t in p.tally().items():
                row = f"{pair:<{wa + wb + 4}}  {label:<{wl}}  {t['games']:>9}"
                if not dummy:
                    row += f"  {t['matches']:>11}"
                lines.append(row + f"  {t['points'] / max(1, t['played']):>12.1f}")
            ms = p.match_summary
            if ms is not None:
                lines.append(
                    f"{'':<{wa + wb + 4}}  A - B points per duplicate match: "
                    f"{ms.mean:+.1f} {_ci(ms)}"
                )
    incidents = result.incidents()
    if incidents:
        lines += ["", "External bots: decisions made by the fallback bot (details in --out)"]
        counts: dict[tuple[str, str], int] = {}
        for x in incidents:
            key = (x["label"], x["kind"])
            counts[key] = counts.get(key, 0) + 1
        for (label, kind), n in sorted(counts.items()):
            lines.append(f"{label:<{wl}}  {kind:<8}  {n:>6}")
    return "\n".join(lines)


__all__ = ["format_table"]
