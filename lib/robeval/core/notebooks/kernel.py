"""What runs inside a notebook: :func:`setup`, its first call (settings, result folder, ledger), the check of
papermill's injected parameters, and :func:`show_ledger` for interactive work."""

from __future__ import annotations

PAPERMILL_MARKER = "# Parameters"  # first line of the cell papermill injects after the `parameters` cell


def _assigned_names(source: str) -> list[str]:
    """Names bound by top-level assignments of a cell's source (``a = 1``, ``a: int = 1``)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def check_injected_parameters(history, declared=()) -> None:
    """Raise ValueError when papermill injected a parameter the notebook does not declare.

    ``history``: the sources of the cells executed so far, in order (IPython's ``In``); papermill's injected
    cell starts with ``# Parameters`` and directly follows the notebook's ``parameters`` cell, whose assigned
    names (plus ``declared``) are the known parameters. Papermill itself only warns about unknown names, and
    the run would ignore them (``-p n_sample 100`` for ``n_samples``). No injected cell: nothing to check.
    """
    if isinstance(history, str) or not isinstance(history, (list, tuple)):
        raise TypeError(f"history must be a list of cell sources (IPython's In), got {type(history).__name__}.")
    if isinstance(declared, (str, bytes)) or not hasattr(declared, "__iter__"):  # a list, set or dict of names
        raise TypeError(f"declared must be a list of parameter names, got {type(declared).__name__} {declared!r:.60}.")
    cells = [c for c in history if isinstance(c, str) and c.strip()]
    injected = [i for i, c in enumerate(cells) if c.lstrip().startswith(PAPERMILL_MARKER)]
    if not injected:
        return
    i = injected[-1]
    known = set(declared) | {"profile"}
    if i > 0:
        known |= set(_assigned_names(cells[i - 1]))
    unknown = [n for n in _assigned_names(cells[i]) if n not in known]
    if unknown:
        raise ValueError(
            f"unknown notebook parameter(s) {', '.join(map(repr, unknown))}; this notebook's parameters are "
            f"{', '.join(sorted(known))}. Fix the name given with papermill -p (or robeval run -p)."
        )


def _kernel_history():
    """IPython's list of executed cell sources when running in a kernel, else None."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    ip = get_ipython()
    return None if ip is None else list(ip.user_ns.get("In", []) or [])


def show_ledger(ledger, central_only: bool = False, max_width_em: int = 40):
    """Every field of a ledger for interactive work: a pandas Styler with wrapped text and fixed column widths
    (long descriptions wrap instead of widening the table behind a scrollbar). The notebooks show the short index
    instead (:func:`robeval.core.publish.view.short_index`: six columns that fit the page).

    ``ledger``: a :class:`robeval.core.ledger.Ledger` or its ``table()`` DataFrame; ``central_only`` keeps the
    central claims; ``max_width_em``: the width of the widest (text) columns in em. The text is HTML-escaped
    (shown as written, never run as HTML).
    """
    import pandas as pd

    from robeval.core.ledger import Ledger

    if isinstance(ledger, Ledger):
        table = ledger.table()
    elif isinstance(ledger, pd.DataFrame):
        table = ledger
    else:
        raise TypeError(f"ledger must be a Ledger or its table() DataFrame, got {type(ledger).__name__}.")
    if isinstance(max_width_em, bool) or not isinstance(max_width_em, int) or max_width_em < 5:
        raise ValueError(f"max_width_em must be an int >= 5 (em), got {max_width_em!r}.")
    if not isinstance(central_only, bool):
        raise TypeError(f"central_only must be True or False, got {central_only!r:.40}.")
    if central_only and "central" in table:
        table = table[table["central"].astype(bool)]
    wide = {"description": max_width_em, "decides": max_width_em, "note": max_width_em, "rule": max_width_em // 2}
    # every text cell and column name HTML-escaped: a ledger read from another run's JSON may hold "<script>" or
    # "<img onerror=...>", which Jupyter would run when it displays the table
    styler = table.style.format(precision=4, na_rep="", escape="html").hide(axis="index")
    styler = styler.format_index(escape="html", axis=1)
    styler = styler.set_properties(**{"white-space": "pre-wrap", "text-align": "left", "vertical-align": "top"})
    for col in table.columns:
        width = wide.get(col, 8 if col not in ("id", "source", "estimate", "paper_value", "ci") else 14)
        styler = styler.set_properties(subset=[col], **{"min-width": f"{width // 2}em", "max-width": f"{width}em"})
    return styler.set_table_styles([{"selector": "table", "props": "table-layout: fixed;"}])


def setup(experiment: str, profile: str, **params):
    """The first call of every notebook: ``cfg, out_dir, ledger = setup("mscr_2d", profile, **params)``.

    Checks that papermill injected no parameter the notebook's ``parameters`` cell lacks
    (:func:`check_injected_parameters`), pins the CPU kernels in a kernel started without them
    (:func:`robeval.core.env.pin_cpu_kernels`), resolves the experiment's settings under ``profile`` with the
    notebook's papermill parameters (``None`` values are ignored, unknown names raise), prints them with the time estimate and what the
    profile scales down, applies the plotting style, creates the experiment's result folder
    (``results_dir(profile) / experiment``) and opens the notebook's claims ledger (under a dry run a ledger
    that is no evidence: :attr:`robeval.core.ledger.Ledger.survives` False).

    Returns ``(settings, result folder, ledger)``.
    """
    from robeval.core.env import pin_cpu_kernels
    from robeval.core.paths import results_dir
    from robeval.core.profiles import describe, experiments, resolve
    from robeval.core.publish import plotting

    known = experiments()
    if not isinstance(experiment, str) or experiment not in known:  # a name, never a path to another TOML file
        raise ValueError(f"Unknown experiment {experiment!r}; known experiments: {', '.join(known)}.")
    history = _kernel_history()
    if history is not None:
        check_injected_parameters(history, declared=params)
        # the robeval kernel and `robeval run` set these at start; another kernel is pinned here for torch,
        # with a warning when numpy was imported unpinned
        pin_cpu_kernels()
    cfg = resolve(experiment, profile, **params)
    meta = cfg.meta
    if "paper" not in meta or "notebook" not in meta:
        raise ValueError(f"settings/{experiment}.toml needs [meta] paper = ... and notebook = ... entries.")
    describe(cfg)
    plotting.apply_style()
    plotting.CONTEXT["notebook"] = meta["notebook"]
    out_dir = results_dir(profile) / experiment
    out_dir.mkdir(parents=True, exist_ok=True)
    return cfg, out_dir, ledger_for(cfg, profile)


def ledger_for(cfg, profile: str):
    """The empty :class:`~robeval.core.ledger.Ledger` of a notebook run with the resolved settings ``cfg`` under
    ``profile`` (what :func:`setup` returns; the tests that rebuild a committed ledger from its result files open
    theirs here too)."""
    from robeval.core.ledger import Ledger, is_scaled

    meta = getattr(cfg, "meta", None)
    if not isinstance(meta, dict) or not {"paper", "notebook"} <= set(meta):
        raise TypeError(
            f"cfg must be a notebook's resolved settings (robeval.core.profiles.resolve(...), with meta paper and "
            f"notebook), got {type(cfg).__name__} {str(cfg)[:60]!r}."
        )
    if getattr(cfg, "profile", profile) != profile:  # smoke's settings under the paper profile: mislabelled rows
        raise ValueError(
            f"cfg was resolved under the profile {cfg.profile!r}, not {profile!r}; resolve it under {profile!r}."
        )
    scaled_down = str(getattr(cfg, "scaled_down", "") or "")
    pipeline = str(getattr(cfg, "pipeline_check", "") or "")
    return Ledger(
        paper=meta["paper"],
        notebook=meta["notebook"],
        profile=profile,
        scaling=scaled_down if is_scaled(profile, scaled_down) else "",
        mechanism=str(getattr(cfg, "mechanism", "") or ""),
        # a dry run, or a profile sized only to check the pipeline (settings' pipeline_check: the profile that
        # decides), is no evidence about models: their rows "not comparable" (Ledger.survives, Ledger.decided_by)
        survives=not (cfg.dry_run or pipeline),
        decided_by="" if cfg.dry_run else pipeline,
    )
