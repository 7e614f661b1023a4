"""Per-row figures of :meth:`robeval.core.ledger.Ledger.finalise` that say how a rerun would judge a decision:
its stability (:func:`stability_of`, the gate every decision must pass), the reruns with more runs that other
profiles have stored (:func:`larger_reruns`, a gate too) and its agreement with a rerun (:func:`rerun_agreement`,
reported only). The rules themselves are :mod:`robeval.core.ledger.decisions`."""

from __future__ import annotations

from robeval.core.ledger import decisions as _decisions
from robeval.core.ledger.vocab import DECIDED, MIN_BOOTSTRAP_N, decision_of


def _resampling(claim):
    """``(draw, seed)``: the row's predictive resampler (:func:`robeval.core.ledger.decisions.resampler`) and its seed
    (from the row's paper and id), or ``(None, seed)`` where resamples cannot rate it: no runs carried (a table, a
    derived interval), fewer than :data:`MIN_BOOTSTRAP_N` of them (a handful of distinct resamples, many without
    spread), or a zero-width interval (its resamples cannot vary either: the closed form rates it)."""
    import zlib

    seed = zlib.crc32(f"{claim.paper}/{claim.id}".encode())
    draw = getattr(claim, "_resample", None)
    if draw is None or int(claim._test.n) < MIN_BOOTSTRAP_N or getattr(claim, "_zero_width", False):
        return None, seed
    return draw, seed


def stability_of(claim, decision: str, level: float) -> tuple[float, int | None]:
    """A decision's stability and the n that makes it stable (:mod:`robeval.core.ledger.decisions`): the lower of the
    predictive closed form and, where the row's interval carries its runs and they are at least
    :data:`MIN_BOOTSTRAP_N` (fewer give a handful of distinct resamples, many of them without spread), the share
    of predictive resamples of the runs that reach the decision again; the n is the larger of the two rules'
    (None when either has none)."""
    test = claim._test
    stability = _decisions.decision_stability(test, decision, level)
    n = _decisions.decision_n(test, decision, level)
    draw, seed = _resampling(claim)
    claim._resampled = False
    if draw is not None:
        resampled = _decisions.resampled_stability(draw, decision, level, seed)
        if resampled < stability:
            stability, claim._resampled = resampled, True
        if resampled < _decisions.STABLE and n is not None:
            n_res = _decisions.resampled_n(draw, decision, level, seed, max(int(test.n), 2))
            n = None if n_res is None else max(n, n_res)
    return round(float(stability), 3), n


def rerun_agreement(notebook: str, tests, adjusted) -> None:
    """Every decided test row's ``agreement``: the probability that a rerun with other seeds reaches the same
    verdict, its own rules included (:func:`robeval.core.ledger.decisions.verdict_agreement`). It decides nothing: a
    row just past any gate agrees with a rerun only about half the time, whatever the gate, and a rule that
    left the least agreeing rows open would make each row's verdict hang on the others' noise (a simulation
    of reruns changed more verdicts with it, not fewer). Its mean over a notebook's decided rows (exact ones
    agree always) predicts how many of them a rerun changes, which ``docs/reliability.md`` checks against
    reruns with other seeds (issue 45, item 0)."""
    alpha = _decisions.ALPHA
    for c in tests:
        c.agreement = None
        if c.verdict not in DECIDED:
            continue
        name = f"{notebook} / {c._family}" if c._family else notebook
        _, rank, m = adjusted[name][id(c)]
        level = alpha / (m - rank + 1)
        test = c._test
        if isinstance(test, _decisions.TableTest):
            c.agreement = c.stability
            continue
        draw, seed = _resampling(c)
        c.agreement = round(_decisions.verdict_agreement(test, decision_of(test, c.verdict), level, draw, seed), 3)


def larger_reruns(profile: str, notebook: str) -> dict[str, list[tuple[str, dict]]]:
    """The stored rows of ``notebook`` at every other profile that computes (not smoke, not a dry run), by row
    id: ``{id: [(profile, row), ...]}``, read from the committed ledgers (:func:`robeval.core.paths.stored_ledger`).
    :meth:`robeval.core.ledger.Ledger.finalise` lets a decision stand only where none of them rests on more
    independent runs of the same row and fails to reach it. Empty for the smoke profile and a dry run."""
    from robeval.core.io import read_json
    from robeval.core.paths import PROFILES, stored_ledger
    from robeval.core.profiles import dry_run

    out: dict[str, list[tuple[str, dict]]] = {}
    if profile == "smoke" or dry_run():
        return out
    for other in PROFILES:
        path = None if other == profile else stored_ledger(other, notebook)
        if path is None:
            continue
        for row in read_json(path).get("claims", []):
            out.setdefault(row["id"], []).append((other, row))
    return out


def overruled_by(claim, reruns: dict) -> tuple[str, dict] | None:
    """The stored rerun (``(profile, row)``, from :func:`larger_reruns`) that overrules ``claim``'s decision:
    one resting on more independent runs of the same row whose verdict differs (another decision, or none).
    The largest such rerun; None where none does."""
    mine = claim.n_runs or 0
    against = [
        (other, row)
        for other, row in reruns.get(claim.id, [])
        if (row.get("n_runs") or 0) > mine and row.get("verdict") != claim.verdict
    ]
    return max(against, key=lambda pr: pr[1]["n_runs"]) if against else None


RERUN_RECORD = "reruns.json"  # results/<profile>/reruns.json: the reruns with other seeds and the rows they changed
FLIPS_TO_OPEN = 2  # independent reruns that each failed to reach a decision leave it open


def recorded_flips(profile: str, notebook: str) -> dict[str, list[dict]]:
    """The rows of ``notebook`` that reruns with other seeds at ``profile`` failed to reach again, by row id:
    ``{id: [{"rerun", "verdict", "where"}, ...]}`` from ``results/<profile>/reruns.json`` (written by whoever
    reruns, one entry per rerun and row it changed, with the page that records it). Empty where there is no record,
    for the smoke profile and in a dry run."""
    from robeval.core.io import read_json
    from robeval.core.paths import results_dir
    from robeval.core.profiles import dry_run

    if profile == "smoke" or dry_run():
        return {}
    path = results_dir(profile) / RERUN_RECORD
    if not path.is_file():
        return {}
    record = read_json(path)
    entries = record.get(notebook, {}) if isinstance(record, dict) else None
    if not isinstance(entries, dict) or not all(
        isinstance(v, list) and all(isinstance(e, dict) and {"rerun", "verdict"} <= set(e) for e in v)
        for v in entries.values()
    ):
        raise ValueError(
            f"{path}: {notebook!r} must map row ids to lists of {{'rerun', 'verdict', 'where'}} entries; fix the record."
        )
    return entries


def flipped_in_reruns(claim, flips: dict) -> list[dict] | None:
    """The recorded reruns (:func:`recorded_flips`) that did not reach ``claim``'s decision, when at least
    :data:`FLIPS_TO_OPEN` independent ones did not (a rerun is independent when its seeds differ from every other's);
    None otherwise. Rule 8 of :mod:`robeval.core.ledger`: such a decision is left open, whatever its stability."""
    if claim.verdict not in DECIDED:
        return None
    against = {e["rerun"]: e for e in flips.get(claim.id, []) if e["verdict"] != claim.verdict}
    return list(against.values()) if len(against) >= FLIPS_TO_OPEN else None


def leave_flipped_open(claims, profile: str, notebook: str) -> None:
    """Rule 8 of :mod:`robeval.core.ledger`, applied by :meth:`~robeval.core.ledger.Ledger.finalise` (in place): every
    decided row that :data:`FLIPS_TO_OPEN` independent recorded reruns did not reach (:func:`flipped_in_reruns`)
    becomes inconclusive, keeping its decision as ``unadjusted`` and naming the reruns in ``decides``."""
    from robeval.core.ledger.vocab import INCONCLUSIVE

    flips = recorded_flips(profile, notebook)
    for c in claims:
        against = flipped_in_reruns(c, flips)
        if against is not None:
            c.unadjusted, c.verdict = c.verdict, INCONCLUSIVE
            seen = "; ".join(f"{e['rerun']}: '{e['verdict']}'" for e in against)
            c.decides = (
                f"{len(against)} independent reruns did not reach it ({seen}; results/{profile}/reruns.json): "
                "a rerun reaches it less often than its stability says; more runs, then reruns that agree"
            )
