"""Rows the paper leaves ambiguous and rows the paper puts forward: the readings and central-statement parts of
:class:`robeval.core.ledger.Ledger` (a mixin; the public API is the Ledger's). A statement the paper leaves
ambiguous is decided only when every reading agrees (:mod:`robeval.core.ledger.ambiguities`); the statements of each
paper's abstract and conclusion are central (:mod:`robeval.core.ledger.central`)."""

from __future__ import annotations

from robeval.core.ledger.vocab import (
    DECIDED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    Claim,
    check_central,
    round_value,
)


class ReadingsMixin:
    """:meth:`readings`, :meth:`under_readings`, :meth:`check_ambiguities` and the central statements of a
    :class:`robeval.core.ledger.Ledger`."""

    def readings(
        self,
        id: str,
        source: str,
        description: str,
        *,
        parts,
        ambiguity: str,
        key: str = "",
        missing=(),
        central: bool = False,
        note: str = "",
    ) -> Claim:
        """A statement the paper leaves ambiguous (``ambiguity`` names what is unstated), decided only when
        every reasonable reading agrees: ``parts`` are the rows already recorded, one per reading (their ids,
        or the Claims). The combined row takes their common verdict (recombined by :meth:`finalise`, after the
        family rules); when the readings disagree it is inconclusive and names the ambiguity. ``key`` names the
        ambiguity in :data:`robeval.core.ledger.ambiguities.AMBIGUITIES`; ``missing``: readings not run (e.g. class
        pairs the paper leaves open): the row then decides in neither direction (a rule that blocked only the
        contradiction while a reproduction under the same single choice stood could fail one way only). The
        parts are marked ``part_of`` = ``id`` and left out of the verdict tallies (the combined row counts)."""
        parts = [p if isinstance(p, Claim) else self.get(p) for p in parts]
        missing = list(missing)
        if len(parts) + len(missing) < 2:
            raise ValueError("readings needs at least two readings: a recorded row per reading (or missing=).")
        if key:
            from robeval.core.ledger.ambiguities import AMBIGUITIES

            if key not in AMBIGUITIES or AMBIGUITIES[key].paper != self.paper:
                raise ValueError(
                    f"key {key!r} is not an ambiguity of paper {self.paper!r} (robeval.core.ledger.ambiguities)."
                )
        if not ambiguity:
            raise ValueError("readings needs ambiguity= naming what the paper leaves open.")
        evidence = {p.evidence for p in parts}
        units = {p.unit for p in parts}
        if len(evidence) != 1:
            raise ValueError(f"the readings of {id} must share one evidence class, got {sorted(evidence)}.")
        claim = Claim(
            id=self._check_id(id), paper=self.paper, source=source, description=description, kind="readings",
            paper_value=parts[0].paper_value, estimate="", ci=None, level=None, margin=None,
            n_runs=min((p.n_runs for p in parts if p.n_runs is not None), default=None),
            rule=f"every reading must agree ({len(parts)} readings: {ambiguity})", power=None,
            verdict=INCONCLUSIVE, decides="", central=check_central(central, id), profile=self.profile, notebook=self.notebook,
            note=note, evidence=evidence.pop(), unit=units.pop() if len(units) == 1 else None,
            scaling=parts[0].scaling, mechanism=parts[0].mechanism, about=parts[0].about, ambiguity=key,
            depends=tuple(sorted({k for p in parts for k in p.depends} | ({key} if key else set()))),
        )  # fmt: skip
        claim._readings = (ambiguity, [p.id for p in parts], missing)
        for p in parts:
            p.part_of = claim.id  # with the suffix of an enclosing under_readings
        self._combine(claim)
        self.claims.append(claim)
        return claim

    def _combine(self, claim: Claim) -> None:
        """A readings row's verdict from its parts' current verdicts: their common verdict, else inconclusive."""
        ambiguity, ids, missing = claim._readings
        parts = [self.get(i) for i in ids]
        verdicts = {p.verdict for p in parts}
        verdict = verdicts.pop() if len(verdicts) == 1 else INCONCLUSIVE
        claim.estimate = "; ".join(f"{p.id}: {round_value(p.estimate)} ({p.verdict})" for p in parts)
        claim.stability = None
        if missing and verdict in DECIDED:
            claim.verdict = INCONCLUSIVE
            claim.decides = f"runs under the reading(s) {', '.join(missing)} too (not run at this profile; {ambiguity})"
            return
        if verdict == INCONCLUSIVE:
            decided = [p for p in parts if p.verdict in DECIDED]
            decides = (
                f"the paper's intended reading ({ambiguity})"
                if decided
                else "; ".join(f"{p.id}: {p.decides}" for p in parts if p.decides) or f"every reading ({ambiguity})"
            )
        elif verdict == NOT_COMPARABLE:
            decides = parts[0].decides
        else:
            decides = ""
        claim.verdict, claim.decides = verdict, decides
        stab = [p.stability for p in parts if p.stability is not None]
        claim.stability = min(stab) if stab and verdict in DECIDED else None
        agree = [p.agreement for p in parts if getattr(p, "agreement", None) is not None]
        claim.agreement = min(agree) if agree and verdict in DECIDED else None  # every reading must hold again
        bases = {p.noise_basis for p in parts}
        claim.noise_basis = bases.pop() if len(bases) == 1 else ""

    def under_readings(self, key: str, runs: dict, record) -> list[Claim]:
        """Record rows that depend on the ambiguity ``key`` (:data:`robeval.core.ledger.ambiguities.AMBIGUITIES`) under
        each of its readings: ``runs`` maps each reading to the data ``record(ledger, data)`` needs (None: the
        reading was not run at this profile), and ``record`` records the rows (their ids get ``.<reading>``).
        Each row is then combined across readings into a readings row with the plain id, decided only when
        every reading agrees; a reading that was not run leaves it inconclusive. Returns the combined rows.

        Rows that depend on several ambiguities nest the calls: ``record`` may itself call
        :meth:`under_readings` for another key, so that ``<id>.<reading>.<other reading>`` are the leaves,
        ``<id>.<reading>`` combines the other ambiguity's readings and ``<id>`` this one's."""
        from robeval.core.ledger.ambiguities import AMBIGUITIES

        amb = AMBIGUITIES.get(key)
        if amb is None or amb.paper != self.paper:
            raise ValueError(f"{key!r} is not an ambiguity of paper {self.paper!r}; declare it in "
                             "robeval.core.ledger.ambiguities.AMBIGUITIES.")  # fmt: skip
        if set(runs) != set(amb.readings):
            raise ValueError(f"{key}: runs must name every reading {sorted(amb.readings)} (None where not run), "
                             f"got {sorted(runs)}.")  # fmt: skip
        done = {name: data for name, data in runs.items() if data is not None}
        if not done:
            raise ValueError(f"{key}: no reading was run; record nothing, or run at least one reading.")
        outer = getattr(self, "_suffix", "")  # the readings of an enclosing under_readings call
        parts: dict[str, list[Claim]] = {}
        for name, data in done.items():
            n0 = len(self.claims)
            self._suffix = f"{outer}.{name}"
            try:
                record(self, data)
            finally:
                self._suffix = outer
            # the rows this reading recorded (a nested call's parts are left to its combined rows)
            parts[name] = [c for c in self.claims[n0:] if not c.part_of]
        first = next(iter(parts))
        bases = [c.id[: -len(outer) - len(first) - 1] for c in parts[first]]
        for name, rows in parts.items():
            got = [c.id[: -len(outer) - len(name) - 1] for c in rows]
            if got != bases:
                raise ValueError(
                    f"{key}: the readings recorded different rows ({first}: {bases[:5]}, {name}: {got[:5]})."
                )
        missing = [r for r in amb.readings if r not in done]
        out = []
        for i, base in enumerate(bases):
            ps = [parts[name][i] for name in parts]
            central = any(c.central for c in ps)
            for c in ps:
                c.central = False  # the combined row carries the claim (and counts in the tallies)
            out.append(
                self.readings(
                    base, ps[0].source, ps[0].description, parts=ps, ambiguity=amb.statement, key=key,
                    central=central, missing=missing,
                )
            )  # fmt: skip
        return out

    def _covers(self, row: Claim, key: str) -> bool:
        """Whether ``row`` is tested under every reading of the ambiguity ``key``: it is a readings row for
        ``key``, or a readings row (for another key) whose every part is tested under every reading of ``key``."""
        if row.ambiguity == key:
            return True
        ids = (getattr(row, "_readings", None) or (None, ()))[1]
        return bool(ids) and all(self._covers(self.get(i), key) for i in ids)

    def check_ambiguities(self) -> None:
        """ValueError unless every row that depends on an ambiguity of this paper — it declares it
        (``depends=``) or its id matches a pattern of :data:`robeval.core.ledger.ambiguities.AMBIGUITIES` for this
        notebook — is tested under every reading of it (:meth:`_covers`), and every such pattern matches a
        recorded row. The parts of a readings row carry their one reading and are left to their combined row."""
        from fnmatch import fnmatchcase

        from robeval.core.ledger.ambiguities import AMBIGUITIES, for_notebook

        rows = [c for c in self.claims if not c.part_of]
        needs = {c.id: set(c.depends) for c in rows}
        dead = []
        for amb in for_notebook(self.paper, self.notebook):
            pats = amb.rows[self.notebook]
            dead += [f"{amb.key}: {p}" for p in pats if not any(fnmatchcase(c.id, p) for c in rows)]
            for c in rows:
                if any(fnmatchcase(c.id, p) for p in pats):
                    needs[c.id].add(amb.key)
        single = {c.id: sorted(k for k in needs[c.id] if not self._covers(c, k)) for c in rows}
        single = {i: keys for i, keys in single.items() if keys}
        if dead or single:
            keys = sorted({k for ks in single.values() for k in ks})
            what = "; ".join(f"{k!r} ({AMBIGUITIES[k].statement[:80]}...)" for k in keys)
            raise ValueError(
                f"{self.notebook}: rows that depend on an ambiguity must be tested under every reading of it ({what}): "
                f"recorded under one reading only {dict(list(single.items())[:8])}; patterns matching no row {dead}. "
                f"Record them with Ledger.under_readings(key, ...) (nested for several keys) or Ledger.readings(key=...)."
            )

    def _central_rows(self) -> dict:
        """Registered central statement key -> the rows of this ledger that test it
        (:data:`robeval.core.ledger.central.STATEMENTS`; parts of a readings row are left to their combined row)."""
        from fnmatch import fnmatchcase

        from robeval.core.ledger.central import for_notebook

        rows = [c for c in self.claims if not c.part_of]
        return {
            st.key: [c for c in rows if any(fnmatchcase(c.id, p) for p in st.rows[self.notebook])]
            for st in for_notebook(self.paper, self.notebook)
        }

    def _mark_central(self) -> None:
        """Every row that tests a statement of the paper's abstract or conclusion (the registry) is central, and
        so corrected in the notebook's family (issue 45, item 4); a row the registry names as no statement of the
        paper (our estimator, our arithmetic, a tautology: :data:`robeval.core.ledger.central.NOT_CENTRAL`) is not
        central, whatever it was recorded with (issue 60, item 5)."""
        from robeval.core.ledger.central import NOT_CENTRAL

        for found in self._central_rows().values():
            for c in found:
                c.central = True
                c._family = ""
        never = NOT_CENTRAL.get(self.notebook, {})
        for c in self.claims:
            if c.id in never:
                c.central = False

    def check_central(self) -> None:
        """ValueError when a registered central statement's pattern for this notebook matches no recorded row
        (:mod:`robeval.core.ledger.central`): a renamed row must not drop a statement from the counts unnoticed."""
        dead = [key for key, found in self._central_rows().items() if not found]
        if dead:
            raise ValueError(
                f"{self.notebook}: the central statement(s) {dead} of robeval.core.ledger.central name rows this ledger does "
                "not record; update the registry's patterns (or record the rows)."
            )
