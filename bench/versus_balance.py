"""Versus balance, measured with bots: `python -m bench.versus_balance --matches 500 --workers 2`.

Three suites of seeded 1 v 1 matches, each `--matches` long, on a pengo-versus version's rules
(`--version`, default the current one; rules/versus/tables.py) and that version's bots:

- `competent-vs-lazy`: the competent bot against the lazy bot, seats alternating;
- `mirror`: competent against competent (each seat's bot has its own seed);
- `mirror-no-attacks`: the same mirror matches (same seeds) with every attack unit zeroed, so no
  attack is ever sent: the control for "does receiving attacks hurt?".

Reported (the numbers DESIGN.md asks for): win rates (and by seat in the mirror), draws, average match
length, the share of matches that end by elimination before the time limit, how often the seat that
sent more attack units won, attacks sent and landed per board-minute, the share of each landing kind
(garbage, nuisance, gems), deaths per board-minute with and without attacks — overall and by act, since
attacks slow the receiver's progress into the harder acts — and the death rate in the 15 s after a
landing against the rate at other times at the same act: deaths after landings over the deaths the
board's own act-by-act rate outside those windows predicts for the same in-play minutes (acts 1–4
pooled). Also the bots' speed: decide() calls per second of CPU time.

Every figure a target is read from carries its 95 % interval: Wilson's for a proportion of matches,
a bootstrap over matches (2,000 resamples, a fixed seed, percentile interval) for a ratio of rates,
and an exact-style Poisson interval (Byar's approximation) for a count or a rate per board-minute.

`--set FIELD=VALUE` (repeatable) tries a change to an AttackTable or VersusRules number without editing
tables.py. Matches run in a multiprocessing pool (`--workers`, default: every core); a progress bar is
drawn with rich when it is installed. The numbers depend only on the seeds (`--seed`), never on the
worker count. bench/BALANCE.md quotes a 400-match run of version 3, a 500-match run of version 2
(`--version 2`) and the 200-match runs of version 1 (`--version 1`).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from rules.kick.events import Crush, Death, Eat, EggBroken, Line, RoundClear
from rules.versus.bots import CompetentBot, make_bot, seat_seed
from rules.versus.ending import EndReason
from rules.versus.events import Attack, BoardRecord, Landing, Offset, Queued
from rules.versus.inputs import NEUTRAL
from rules.versus.landing import LandingKind
from rules.versus.match import VersusConfig, VersusMatch, versus_config
from rules.versus.tables import FRAME_HZ, RULESET_VERSION, RULESET_VERSIONS, AttackTable, VersusRules

SUITES: tuple[str, ...] = ("competent-vs-lazy", "mirror", "mirror-no-attacks")
#: After a landing, a board counts as "under attack" for this many frames (deaths there are compared).
AFTER_LANDING_FRAMES = 15 * FRAME_HZ
LANDING_KINDS: tuple[str, ...] = tuple(kind.value for kind in LandingKind)
#: Acts grouped for the deaths-by-act breakdown: (label, first level, last level).
ACT_GROUPS: tuple[tuple[str, int, int], ...] = (
    ("act 1", 1, 1),
    ("act 2", 2, 2),
    ("act 3", 3, 3),
    ("act 4", 4, 4),
    ("act 5+", 5, 1 << 30),
)


#: The act groups the after-landing comparison pools (acts 1–4: every act with 3 slots).
MATCHED_GROUPS = (0, 1, 2, 3)
#: Bootstrap resamples, and the seed of their draws (the intervals are reproducible).
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0xB007


def act_group(level: int) -> int:
    """The ACT_GROUPS index of a level."""
    return next(i for i, (_, low, high) in enumerate(ACT_GROUPS) if low <= level <= high)


FRAMES_PER_MINUTE = 60 * FRAME_HZ


def no_attack_rules(rules: VersusRules) -> VersusRules:
    """The same rules with every attack unit zeroed: nothing is ever sent."""
    table = rules.attack
    zeroed = replace(
        table,
        crush=tuple(0 for _ in table.crush),
        line=0,
        line_wall=0,
        eat=0,
        egg=0,
        round_clear=0,
        round_clear_tiers=tuple((points, 0) for points, _ in table.round_clear_tiers),
        chain_bonus=0,
    )
    return replace(rules, attack=zeroed)


@dataclass
class SeatStats:
    """One seat's numbers in one match."""

    bot: str
    deaths: int = 0
    #: Frames this board was in the match (until it went out, or the end).
    frames: int = 0
    #: Frames within AFTER_LANDING_FRAMES after a landing on this board, and the deaths in them.
    exposed_frames: int = 0
    exposed_deaths: int = 0
    attacks: int = 0
    attack_units: int = 0
    sent_units: int = 0
    offset_units: int = 0
    landings: int = 0
    landed_units: int = 0
    landing_kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LANDING_KINDS, 0))
    crushed: int = 0
    eaten: int = 0
    eggs: int = 0
    lines: int = 0
    clears: int = 0
    decisions: int = 0
    searches: int = 0
    decide_seconds: float = 0.0
    #: Frames and deaths by act group (ACT_GROUPS), to compare boards at the same difficulty.
    group_frames: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))
    group_deaths: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))
    #: In-play frames (the board's status "playing": the only frames a death can start on) by act
    #: group, within AFTER_LANDING_FRAMES after a landing or not, and the deaths in each.
    play_exposed_frames: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))
    play_exposed_deaths: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))
    play_other_frames: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))
    play_other_deaths: list[int] = field(default_factory=lambda: [0] * len(ACT_GROUPS))


@dataclass
class MatchStats:
    """One match's outcome and per-seat numbers."""

    suite: str
    index: int
    seed: int
    winner: int | None
    reason: EndReason
    frames: int
    scores: tuple[int, ...]
    seats: list[SeatStats]


def match_seed(index: int, base: int) -> int:
    """The seed of the index-th match of a suite."""
    return (base + index * 0x9E3779B1) & 0xFFFFFFFF


def suite_bots(suite: str, index: int) -> tuple[str, str]:
    """Who sits where: competent-vs-lazy alternates seats, the mirrors are competent twice."""
    if suite == "competent-vs-lazy":
        return ("competent", "lazy") if index % 2 == 0 else ("lazy", "competent")
    return ("competent", "competent")


def play_match(suite: str, index: int, base_seed: int, config: VersusConfig, version: int) -> MatchStats:
    """Play one seeded match of a suite to its end with the version's bots and count what happened."""
    seed = match_seed(index, base_seed)
    names = suite_bots(suite, index)
    if suite == "mirror-no-attacks":
        config = dataclasses.replace(config, rules=no_attack_rules(config.rules))
    match = VersusMatch(config, seed, len(names))
    bots = [make_bot(name, seat_seed(seed, seat), version) for seat, name in enumerate(names)]
    seats = [SeatStats(name) for name in names]
    exposed_until = [-1] * len(names)
    clock = time.process_time
    while not match.finished:
        frame = match.frame
        inputs = []
        for seat, bot in enumerate(bots):
            if not match.seat_states[seat].alive:
                inputs.append(NEUTRAL)
                continue
            started = clock()
            inputs.append(bot.decide(match.seat_view(seat), frame))
            stats = seats[seat]
            stats.decide_seconds += clock() - started
            stats.decisions += 1
        groups = []
        for seat in range(len(names)):
            game = match.games[seat]
            group = act_group(game.level)
            groups.append(group)
            playing = game.status == "playing" and match.seat_states[seat].alive
            if match.seat_states[seat].alive:
                stats = seats[seat]
                stats.frames += 1
                stats.group_frames[group] += 1
                exposed = frame <= exposed_until[seat]
                if exposed:
                    stats.exposed_frames += 1
                if playing:
                    (stats.play_exposed_frames if exposed else stats.play_other_frames)[group] += 1
        for record in match.step(inputs):
            if isinstance(record, BoardRecord) and isinstance(record.event, Death):
                stats = seats[record.seat]
                group = groups[record.seat]
                stats.group_deaths[group] += 1
                exposed = frame <= exposed_until[record.seat]
                (stats.play_exposed_deaths if exposed else stats.play_other_deaths)[group] += 1
            _count(record, seats, exposed_until, frame)
    for seat, bot in enumerate(bots):
        if isinstance(bot, CompetentBot):
            seats[seat].searches = bot.searches
    result = match.result
    assert result is not None
    return MatchStats(
        suite, index, seed, result.winner, EndReason(result.reason), result.frame, result.scores, seats
    )


def _count(record: object, seats: list[SeatStats], exposed_until: list[int], frame: int) -> None:
    if isinstance(record, BoardRecord):
        stats = seats[record.seat]
        event = record.event
        if isinstance(event, Death):
            stats.deaths += 1
            if frame <= exposed_until[record.seat]:
                stats.exposed_deaths += 1
        elif isinstance(event, Crush):
            stats.crushed += len(event.ids)
        elif isinstance(event, Eat):
            stats.eaten += 1
        elif isinstance(event, EggBroken):
            stats.eggs += 1
        elif isinstance(event, Line):
            stats.lines += 1
        elif isinstance(event, RoundClear):
            stats.clears += 1
    elif isinstance(record, Attack):
        seats[record.seat].attacks += 1
        seats[record.seat].attack_units += record.units
    elif isinstance(record, Offset):
        seats[record.seat].offset_units += record.units
    elif isinstance(record, Queued):
        seats[record.source].sent_units += record.units
    elif isinstance(record, Landing):
        stats = seats[record.seat]
        stats.landings += 1
        stats.landed_units += record.units
        stats.landing_kinds[record.landing] += 1
        exposed_until[record.seat] = frame + AFTER_LANDING_FRAMES


def _task(args: tuple[str, int, int, VersusConfig, int]) -> MatchStats:
    return play_match(*args)


def with_settings(rules: VersusRules, settings: Sequence[str]) -> VersusRules:
    """The rules with FIELD=VALUE settings applied (an AttackTable or VersusRules field; a Python literal)."""
    attack_fields = {f.name for f in dataclasses.fields(AttackTable)}
    rules_fields = {f.name for f in dataclasses.fields(VersusRules)} - {"attack"}
    attack_changes: dict[str, object] = {}
    rules_changes: dict[str, object] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"--set: expected FIELD=VALUE, got {setting!r}")
        value = ast.literal_eval(text.strip())
        if name in attack_fields:
            attack_changes[name] = value
        elif name in rules_fields:
            rules_changes[name] = value
        else:
            raise ValueError(f"--set: unknown field {name!r}; one of {sorted(attack_fields | rules_fields)}")
    return replace(rules, attack=replace(rules.attack, **attack_changes), **rules_changes)  # type: ignore[arg-type]


# ---- the report -------------------------------------------------------------------------------------

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def poisson(k: int) -> tuple[float, float]:
    """A 95 % interval of a Poisson count k (Byar's approximation of the exact interval)."""
    low = 0.0 if k == 0 else k * (1 - 1 / (9 * k) - Z95 / (3 * math.sqrt(k))) ** 3
    high = (k + 1) * (1 - 1 / (9 * (k + 1)) + Z95 / (3 * math.sqrt(k + 1))) ** 3
    return low, high


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def _share(part: int, whole: int) -> str:
    """`part/whole (p %, 95 % CI lo–hi %)`, Wilson's interval."""
    if not whole:
        return f"{part}/0 (n/a)"
    low, high = wilson(part, whole)
    return f"{part}/{whole} ({100 * part / whole:.1f} %, 95 % CI {100 * low:.1f}–{100 * high:.1f} %)"


def _rate(count: float, frames: float) -> str:
    return f"{count * FRAMES_PER_MINUTE / frames:.2f}" if frames else "n/a"


def _rate_ci(count: int, frames: int) -> str:
    """A count per board-minute with its Poisson 95 % interval."""
    if not frames:
        return "n/a"
    low, high = poisson(count)
    scale = FRAMES_PER_MINUTE / frames
    return f"{count * scale:.2f} (95 % CI {low * scale:.2f}–{high * scale:.2f})"


def _count_ci(count: int) -> str:
    low, high = poisson(count)
    return f"{count} (95 % CI {low:.1f}–{high:.1f})"


def bootstrap(
    items: Sequence[object], statistic: Callable[[Sequence[object]], float | None]
) -> tuple[float, float] | None:
    """The 2.5 and 97.5 percentiles of `statistic` over BOOTSTRAP_RESAMPLES resamples of `items` (the
    matches: a resample keeps a match's boards together), None when the statistic never exists."""
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(items)
    values = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        value = statistic([items[rng.randrange(n)] for _ in range(n)])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]


#: One match's after-landing numbers for the boards of one bot, by matched act group:
#: (deaths after landings, in-play frames after landings, deaths otherwise, in-play frames otherwise).
Exposure = tuple[tuple[int, int, int, int], ...]


def exposure(match: MatchStats, bot: str) -> Exposure:
    """A match's after-landing numbers for the boards `bot` played (acts 1–4)."""
    seats = [s for s in match.seats if s.bot == bot]
    return tuple(
        (
            sum(s.play_exposed_deaths[g] for s in seats),
            sum(s.play_exposed_frames[g] for s in seats),
            sum(s.play_other_deaths[g] for s in seats),
            sum(s.play_other_frames[g] for s in seats),
        )
        for g in MATCHED_GROUPS
    )


def after_landing(exposures: Sequence[Exposure]) -> tuple[int, float, int, int, int] | None:
    """(deaths after landings, the deaths the other minutes' act-by-act rates predict for those
    minutes, in-play frames after landings, deaths otherwise, frames otherwise) pooled over acts
    1–4; None without a landing."""
    observed = exposed = other_deaths = other_frames = 0
    expected = 0.0
    for g in range(len(MATCHED_GROUPS)):
        deaths_after = sum(e[g][0] for e in exposures)
        frames_after = sum(e[g][1] for e in exposures)
        deaths_else = sum(e[g][2] for e in exposures)
        frames_else = sum(e[g][3] for e in exposures)
        observed += deaths_after
        exposed += frames_after
        other_deaths += deaths_else
        other_frames += frames_else
        if frames_else:
            expected += frames_after * deaths_else / frames_else
    if not exposed:
        return None
    return observed, expected, exposed, other_deaths, other_frames


def after_landing_ratio(exposures: Sequence[object]) -> float | None:
    """Deaths after landings over the act-matched expectation (None when nothing is expected)."""
    pooled = after_landing(exposures)  # type: ignore[arg-type]
    if pooled is None or pooled[1] <= 0:
        return None
    return pooled[0] / pooled[1]


def _won_by_bigger_sender(matches: Sequence[MatchStats]) -> tuple[int, int]:
    """(matches won by the seat that sent on more units after offset, matches with a winner and unequal
    sending)."""
    bigger = decided = 0
    for m in matches:
        if m.winner is None or len(m.seats) != 2:
            continue
        mine, theirs = m.seats[m.winner].sent_units, m.seats[1 - m.winner].sent_units
        if mine != theirs:
            decided += 1
            bigger += mine > theirs
    return bigger, decided


def _after_landing_lines(matches: Sequence[MatchStats], bot: str) -> list[str]:
    """The after-landing comparison of one bot's boards, act-matched, with its bootstrap interval."""
    exposures = [exposure(m, bot) for m in matches]
    pooled = after_landing(exposures)
    if pooled is None:
        return []
    observed, expected, exposed, other_deaths, other_frames = pooled
    lines = [
        f"  deaths per in-play board-minute, acts 1–4: within {AFTER_LANDING_FRAMES // FRAME_HZ} s after a "
        f"landing {_rate_ci(observed, exposed)} ({observed} in {exposed / FRAMES_PER_MINUTE:.1f} min), "
        f"otherwise {_rate_ci(other_deaths, other_frames)} ({other_deaths} in "
        f"{other_frames / FRAMES_PER_MINUTE:.1f} min); at the same act the other minutes predict "
        f"{expected:.1f} deaths after landings ({_rate(expected, exposed)}/min)"
    ]
    if expected > 0:
        interval = bootstrap(exposures, after_landing_ratio)
        ci = f"95 % CI {interval[0]:.2f}–{interval[1]:.2f}, bootstrap over matches" if interval else "no CI"
        lines.append(f"  after-landing death ratio, act-matched: {observed / expected:.2f}× ({ci})")
    return lines


def report(results: Sequence[MatchStats], time_limit: int) -> list[str]:
    """The balance report, one line per entry."""
    lines: list[str] = []
    by_suite: dict[str, list[MatchStats]] = {}
    for result in sorted(results, key=lambda r: (SUITES.index(r.suite), r.index)):
        by_suite.setdefault(result.suite, []).append(result)
    for suite, matches in by_suite.items():
        n = len(matches)
        lines.append(f"== {suite} ({n} matches)")
        draws = sum(m.winner is None for m in matches)
        length = sum(m.frames for m in matches) / n / FRAME_HZ
        early = sum(m.reason is EndReason.ELIMINATION and m.frames < time_limit for m in matches)
        if suite == "competent-vs-lazy":
            won = sum(m.winner is not None and m.seats[m.winner].bot == "competent" for m in matches)
            lost = sum(m.winner is not None and m.seats[m.winner].bot == "lazy" for m in matches)
            lines.append(f"competent wins {_share(won, n)}, lazy wins {lost} ({_pct(lost, n)}), "
                         f"draws {draws} ({_pct(draws, n)})")
            for seat in (0, 1):
                games = [m for m in matches if m.seats[seat].bot == "competent"]
                wins = sum(m.winner == seat for m in games)
                lines.append(f"  competent in seat {seat}: {_share(wins, len(games))}")
        else:
            for seat in (0, 1):
                wins = sum(m.winner == seat for m in matches)
                lines.append(f"seat {seat} wins {_share(wins, n)}")
            lines.append(f"draws {_share(draws, n)}")
        lines.append(f"average match length {length:.1f} s")
        lines.append(f"ended by elimination before the time limit: {_share(early, n)}")
        reasons: dict[str, int] = {}
        for m in matches:
            reasons[m.reason] = reasons.get(m.reason, 0) + 1
        lines.append("end reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
        if suite != "mirror-no-attacks":
            bigger, decided = _won_by_bigger_sender(matches)
            lines.append(f"won by the seat that sent on more units (after offset): {_share(bigger, decided)}")
        for bot in ("competent", "lazy"):
            seats = [s for m in matches for s in m.seats if s.bot == bot]
            if not seats:
                continue
            frames = sum(s.frames for s in seats)
            landings = sum(s.landings for s in seats)
            kinds = {k: sum(s.landing_kinds[k] for s in seats) for k in LANDING_KINDS}
            lines.append(f"-- {bot} boards ({len(seats)}, {frames / FRAMES_PER_MINUTE:.1f} board-minutes)")
            lines.append(
                f"  deaths/min {_rate_ci(sum(s.deaths for s in seats), frames)}; "
                f"Sno-Bees crushed/min {_rate(sum(s.crushed for s in seats), frames)}, "
                f"eaten/min {_rate(sum(s.eaten for s in seats), frames)}, "
                f"eggs broken/min {_rate(sum(s.eggs for s in seats), frames)}, "
                f"round clears/min {_rate(sum(s.clears for s in seats), frames)}"
            )
            lines.append(f"  diamond lines {_count_ci(sum(s.lines for s in seats))}")
            lines.append(
                f"  attacks sent/min {_rate(sum(s.attacks for s in seats), frames)} "
                f"({_rate(sum(s.attack_units for s in seats), frames)} units/min earned, "
                f"{_rate(sum(s.offset_units for s in seats), frames)} offset, "
                f"{_rate(sum(s.sent_units for s in seats), frames)} sent on)"
            )
            lines.append(
                f"  landings received/min {_rate(landings, frames)} "
                f"({_rate(sum(s.landed_units for s in seats), frames)} units/min); kinds: "
                + ", ".join(f"{k} {_count_ci(kinds[k])}" for k in LANDING_KINDS)
            )
            parts = []
            for i, (label, _low, _high) in enumerate(ACT_GROUPS):
                group_frames = sum(s.group_frames[i] for s in seats)
                group_deaths = sum(s.group_deaths[i] for s in seats)
                minutes = group_frames / FRAMES_PER_MINUTE
                parts.append(f"{label} {_rate(group_deaths, group_frames)} ({minutes:.0f} min)")
            lines.append("  deaths/min by act: " + ", ".join(parts))
            if landings:
                lines += _after_landing_lines(matches, bot)
    mirror = by_suite.get("mirror", [])
    control = by_suite.get("mirror-no-attacks", [])
    if mirror and control:
        frames_a = sum(s.frames for m in mirror for s in m.seats)
        frames_b = sum(s.frames for m in control for s in m.seats)
        deaths_a = sum(s.deaths for m in mirror for s in m.seats)
        deaths_b = sum(s.deaths for m in control for s in m.seats)
        lines.append("== attacks vs no attacks (competent mirror)")
        lines.append(
            f"deaths per board-minute: with attacks {_rate_ci(deaths_a, frames_a)}, "
            f"without {_rate_ci(deaths_b, frames_b)}"
        )
        parts = []
        for i, (label, _low, _high) in enumerate(ACT_GROUPS):
            with_attacks = _rate(
                sum(s.group_deaths[i] for m in mirror for s in m.seats),
                sum(s.group_frames[i] for m in mirror for s in m.seats),
            )
            without = _rate(
                sum(s.group_deaths[i] for m in control for s in m.seats),
                sum(s.group_frames[i] for m in control for s in m.seats),
            )
            parts.append(f"{label} {with_attacks} vs {without}")
        lines.append("deaths per board-minute by act, with vs without attacks: " + ", ".join(parts))
        early_a = sum(m.reason is EndReason.ELIMINATION and m.frames < time_limit for m in mirror)
        early_b = sum(m.reason is EndReason.ELIMINATION and m.frames < time_limit for m in control)
        lines.append(
            f"eliminations before the limit: with attacks {_share(early_a, len(mirror))}, "
            f"without {_share(early_b, len(control))}"
        )
    decisions = sum(s.decisions for m in results for s in m.seats)
    seconds = sum(s.decide_seconds for m in results for s in m.seats)
    searches = sum(s.searches for m in results for s in m.seats if s.bot == "competent")
    competent_calls = sum(s.decisions for m in results for s in m.seats if s.bot == "competent")
    competent_seconds = sum(s.decide_seconds for m in results for s in m.seats if s.bot == "competent")
    lazy_calls = decisions - competent_calls
    lazy_seconds = seconds - competent_seconds
    lines.append("== bot speed (CPU time inside decide())")
    if competent_calls:
        lines.append(
            f"competent: {competent_calls / competent_seconds:,.0f} decisions/s "
            f"({1e6 * competent_seconds / competent_calls:.1f} µs per frame on average; a search on "
            f"{_pct(searches, competent_calls)} of frames, "
            f"{1e6 * competent_seconds / max(1, searches):.0f} µs per searched frame at most)"
        )
    if lazy_calls:
        lines.append(
            f"lazy: {lazy_calls / lazy_seconds:,.0f} decisions/s "
            f"({1e6 * lazy_seconds / lazy_calls:.1f} µs per frame)"
        )
    return lines


# ---- running -----------------------------------------------------------------------------------------


def _progress(total: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """(advance, close) of a progress bar: rich when installed, else a plain line every 5 %."""
    try:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    except ImportError:  # pragma: no cover - rich is a project dependency
        done = [0]

        def advance() -> None:
            done[0] += 1
            if done[0] == total or done[0] % max(1, total // 20) == 0:
                print(f"  {done[0]}/{total} matches", file=sys.stderr, flush=True)

        return advance, lambda: None
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=False,
    )
    progress.start()
    task = progress.add_task("matches", total=total)
    return (lambda: progress.advance(task)), progress.stop


def run(
    matches: int,
    workers: int,
    base_seed: int,
    suites: Sequence[str],
    config: VersusConfig,
    version: int,
) -> tuple[list[MatchStats], float]:
    """Play every suite's matches (in a pool when workers > 1); the results and the wall time."""
    tasks = [(suite, index, base_seed, config, version) for index in range(matches) for suite in suites]
    advance, close = _progress(len(tasks))
    started = time.perf_counter()
    results: list[MatchStats] = []
    try:
        stream: Iterator[MatchStats]
        if workers > 1:
            with multiprocessing.Pool(workers) as pool:
                for result in pool.imap_unordered(_task, tasks, chunksize=1):
                    results.append(result)
                    advance()
        else:
            stream = map(_task, tasks)
            for result in stream:
                results.append(result)
                advance()
    finally:
        close()
    return results, time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suites and print the report."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.versus_balance", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--matches", type=int, default=500, help="matches per suite (default 500)")
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count(), help="processes")
    parser.add_argument("--seed", type=lambda s: int(s, 0), default=0x5EED, help="base seed")
    parser.add_argument("--suite", action="append", choices=SUITES, help="run only these suites")
    parser.add_argument(
        "--version",
        type=int,
        choices=RULESET_VERSIONS,
        default=RULESET_VERSION,
        help=f"the pengo-versus version whose rules and bots play (default {RULESET_VERSION})",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="try a rules change: an AttackTable or VersusRules field, e.g. --set fuse_frames=120",
    )
    args = parser.parse_args(argv)
    if args.matches < 1 or args.workers < 1:
        parser.error("--matches and --workers must be at least 1")
    suites = tuple(args.suite) if args.suite else SUITES
    config = versus_config(args.version)
    try:
        rules = with_settings(config.rules, args.set)
    except (ValueError, SyntaxError, TypeError) as error:
        parser.error(str(error))
    config = dataclasses.replace(config, rules=rules)
    results, wall = run(args.matches, args.workers, args.seed, suites, config, args.version)
    print(
        f"versus balance: pengo-versus {args.version}, {args.matches} matches per suite, base seed "
        f"{args.seed:#x}, {args.workers} worker(s), {wall:.0f} s wall"
    )
    if args.set:
        print("settings: " + ", ".join(args.set))
    table: AttackTable = rules.attack
    print(
        f"rules: lives {rules.lives}, skill {rules.skill}, "
        f"time limit {rules.time_limit_frames // FRAME_HZ} s; "
        f"crush {table.crush}, line {table.line}/{table.line_wall}, eat {table.eat}, egg {table.egg}, "
        f"round clear {table.round_clear}+tiers, chain +{table.chain_bonus}, "
        f"fuse {table.fuse_frames} frames, "
        f"cap {table.landing_cap}, garbage ≤{table.garbage_max}, nuisance ≤{table.nuisance_max}, "
        f"gems {table.gem_count}×{table.gem_step_frames} frames"
    )
    print(
        f"landings: garbage {table.garbage_min_distance}–{table.garbage_max_distance or 'any'} cells from "
        f"Pengo, eggs {table.nuisance_eggs}, extra slots {table.extra_slots}, hurry "
        f"{table.landing_hurry_frames} frames (as minute {table.landing_hurry_minutes}); "
        f"Sno-Bees {config.fidelity}, slot timers {config.slot_timers}"
    )
    for line in report(results, rules.time_limit_frames):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
