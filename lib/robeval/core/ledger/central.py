"""The central statements of each paper: what its abstract and conclusion claim, and the ledger rows that test it.

A *statement* is a result the paper itself puts forward (its abstract, its conclusion or discussion's findings);
the README, CLAIMS.md and the site count statements, not rows (issue 60): Theorem 1 is one statement however many
rows test it. Each statement lists the patterns (fnmatch) of the rows that test it, per notebook, and the
*quantifier* the paper states it with:

* ``all`` — every row must hold ("for all eps_train <= 0.007", "at every sigma", a conjunction of parts): the
  statement is judged at its weakest row (an intersection-union test): contradicted (erratum) as soon as one row
  is, reproduced only when every row is (consistency when every row holds and one is a consistency);
* ``any`` — one row suffices ("can", "for some", "e.g."): it holds as soon as one row holds and fails only when
  every row fails.

Otherwise the statement is inconclusive, or not comparable when none of its rows is comparable at that profile
(:func:`statement_verdict`). Where the paper's wording admits both quantifiers (``"any|all"``: the abstract's
"can" against a section's "for both datasets"), the statement is decided only where both readings reach the same
verdict, as every ambiguous statement is (issue 60, item 2). Every row a statement names is central (:meth:`robeval.core.ledger.Ledger.finalise`
marks it, and corrects it in the notebook's family); rows that test our own estimator, our arithmetic or a
tautology are never central (:data:`NOT_CENTRAL`). :meth:`~robeval.core.ledger.Ledger.save` refuses a pattern that
matches no recorded row of its notebook. A statement no row can test names the reason and the resource it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from robeval.core.ledger.vocab import (
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    FAILED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
)

QUANTIFIERS = ("all", "any")
HOLDS = (REPRODUCED, CONSISTENCY)
FAILS = (CONTRADICTED, ERRATUM)
NOT_RUN = "not run"


@dataclass(frozen=True)
class Statement:
    """``source``: where the paper says it (abstract, conclusion, a discussion section); ``statement``: what it
    says, in short; ``quantifier``: ``all`` or ``any`` (module docstring); ``quote``: the paper's words that carry
    the quantifier; ``rows``: notebook -> patterns of the ids of the rows that test it; ``reason``: why no row does
    (then ``rows`` is empty), with the resource that would."""

    key: str
    paper: str
    source: str
    statement: str
    rows: dict = field(default_factory=dict)
    reason: str = ""
    quantifier: str = "all"
    quote: str = ""


def readings_of(quantifier: str) -> list[str]:
    """``"all"`` -> ``["all"]``; ``"any|all"`` -> ``["any", "all"]`` (a statement the paper's words allow both
    ways); ValueError for anything else."""
    parts = quantifier.split("|") if isinstance(quantifier, str) else [quantifier]
    if not parts or any(p not in QUANTIFIERS for p in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"quantifier must be one of {QUANTIFIERS} or both as 'any|all', got {quantifier!r}.")
    return parts


def statement_verdict(verdicts, quantifier: str) -> str:
    """The verdict of a statement from its rows' verdicts under its quantifier (the module's docstring).

    ``verdicts``: the verdict of each row that tests it at one profile (combined rows of ambiguous statements, not
    their single readings). No rows: ``"not run"``. Two readings (``"any|all"``): their common verdict, else
    inconclusive. ValueError for an unknown quantifier or verdict."""
    readings = readings_of(quantifier)
    verdicts = list(verdicts)
    if len(readings) > 1:
        got = {statement_verdict(verdicts, q) for q in readings}
        return got.pop() if len(got) == 1 else INCONCLUSIVE
    known = (*HOLDS, *FAILS, INCONCLUSIVE, NOT_COMPARABLE, FAILED)
    bad = [v for v in verdicts if v not in known]
    if bad:
        raise ValueError(f"unknown verdict(s) {bad}; a row's verdict is one of {known}.")
    if not verdicts:
        return NOT_RUN
    holds = [v for v in verdicts if v in HOLDS]
    fails = [v for v in verdicts if v in FAILS]
    if quantifier == "all":
        if fails:
            return CONTRADICTED if CONTRADICTED in fails else ERRATUM
        if len(holds) == len(verdicts):
            return REPRODUCED if all(v == REPRODUCED for v in holds) else CONSISTENCY
    else:
        if holds:
            return REPRODUCED if REPRODUCED in holds else CONSISTENCY
        if len(fails) == len(verdicts):
            return CONTRADICTED if CONTRADICTED in fails else ERRATUM
    if all(v == NOT_COMPARABLE for v in verdicts):
        return NOT_COMPARABLE
    return INCONCLUSIVE


STATEMENTS: tuple[Statement, ...] = (
    Statement(
        "mscr_reflects_robustness",
        "mscr",
        "Abstract; Sec. 1 (contributions); Sec. 4; Sec. 5.1; Sec. 6",
        "The MSCR metric reflects different levels of corruption robustness: it rises with the training noise eps_train, on the 2D data and on CIFAR-10.",
        rows={"01_mscr_2d": ("S4_mscr_increases",), "02_mscr_cifar10": ("S4_cifar_mscr_increases",)},
        quantifier="all",
        quote="On 2D and image data, we show that the metric reflects different levels of classifier robustness.",
    ),
    Statement(
        "mscr_positive_possible",
        "mscr",
        "Sec. 4; Sec. 5.3 (Discussion)",
        "A robustly trained model can reach MSCR > 0 (it gains accuracy under eps_min noise): verified at eps_train = 0.03 on 2D data and at large eps_train on CIFAR-10.",
        rows={"01_mscr_2d": ("S4_mscr_positive_at_0.03",), "02_mscr_cifar10": ("S53_cifar_mscr_positive",)},
        quantifier="any|all",
        quote="We also verify our conjecture that $MSCR > 0$ is possible for some robust trained models.",
    ),
    Statement(
        "mscr_1nn_constant_superior",
        "mscr",
        "Sec. 4 / Fig. 5; Sec. 5.1",
        "On the 2D data the inherently robust 1-NN model has a constant MSCR (and clean accuracy) that is above the random forest's at every eps_train <= 0.007, which the MSCR correctly displays.",
        rows={
            "01_mscr_2d": (
                "F5b_1nn_mscr_superior_0",
                "F5b_1nn_mscr_superior_0.001",
                "F5b_1nn_mscr_superior_0.002",
                "F5b_1nn_mscr_superior_eps_min",
                "F5b_1nn_mscr_superior_0.007",
                "F5b_1nn_mscr_constant",
                "F5a_1nn_clean_superior_0",
                "F5a_1nn_clean_superior_0.001",
                "F5a_1nn_clean_superior_0.002",
                "F5a_1nn_clean_superior_eps_min",
                "F5a_1nn_clean_superior_0.007",
                "F5a_1nn_clean_constant",
            )
        },
        quantifier="all",
        quote="the 1NN model shows a constant, superior MSCR value compared to the RF model for all $\\epsilon_{train} \\leq 0.007$",
    ),
    Statement(
        "mscr_tradeoff_not_inherent",
        "mscr",
        "Abstract; Sec. 1 (contributions); Sec. 4 / Fig. 6; Sec. 5.4; Sec. 6",
        "Simple uniform-noise augmentation raises both clean accuracy and robustness over standard training (2D: eps_train = 0.007; CIFAR-10: eps_train = 0.01), so the accuracy-robustness trade-off is not inherent.",
        rows={
            "01_mscr_2d": (
                "F6a_clean_gain_0.007",
                "F6a_mscr_gain_0.007",
            ),
            "02_mscr_cifar10": (
                "F6b_clean_gain_0.01",
                "F6b_mscr_gain_0.01",
            ),
        },
        quantifier="all|any",
        quote="For both 2D and CIFAR-10 datasets we observe higher clean and robust accuracy on any test noise when training a model with a specific level of uniform noise",
    ),
    Statement(
        "mscr_optima_off_diagonal",
        "mscr",
        "Abstract; Sec. 4; Sec. 5.6 / Fig. 7; Sec. 6",
        "The best training noise for a given test noise is not the same noise level: for low test noise the optimum lies at larger eps_train, for high test noise at smaller eps_train (2D and CIFAR-10).",
        rows={
            "01_mscr_2d": (
                "S4_offdiag_low",
                "S4_below_diag_high",
            ),
            "02_mscr_cifar10": (
                "S56_cifar_offdiag_low",
                "S56_cifar_below_diag_high",
            ),
        },
        quantifier="any|all",
        quote="classifiers with the highest robust accuracy on a certain level of noise are not strictly those, which are trained on this same level of noise",
    ),
    Statement(
        "mscr_eps_min_not_the_optimum",
        "mscr",
        "Sec. 5.4; Sec. 5.5; Sec. 6",
        "The class separation eps_min does not locate the best training noise: on 2D data the best clean accuracy is at eps_train = 0.007 (about 2 eps_min, above eps_min), on CIFAR-10 below eps_min/5.",
        rows={
            "01_mscr_2d": (
                "S54_optimum_above_eps_min",
                "T2a_best_0",
            ),
            "02_mscr_cifar10": ("S55_csv_optimum_below_eps_min_5",),
        },
        quantifier="all|any",
        quote="the best overall accuracy for the 2D data is achieved for $\\epsilon_{train} \\sim 2 * \\epsilon_{min}$ , while on CIFAR-10 it is achieved for $\\epsilon_{train} < \\epsilon_{min}/5$",
    ),
    Statement(
        "msd_similarity_predicts_error",
        "msd",
        "Abstract; Sec. 1; Sec. 4.2; App. B; Sec. 6",
        "Over the 512-scheme augmentation powerset, the minimal sample distance (MSD) between augmentation and corruption is strongly rank-correlated with corruption error for a large majority of the CIFAR-10-C corruptions, for retrained models and under batch-norm adaptation.",
        rows={
            "03_msd_powerset": (
                "S4.2_retrain_n_above",
                "AppB_bn_n_above",
            )
        },
        quantifier="all",
        quote="for a large majority of CIFAR-10-C corruptions in general: 12 of 15 have Spearman rank correlation greater than 0.6",
    ),
    Statement(
        "msd_mmd_poor_msd_tracks_error",
        "msd",
        "Sec. 1; Sec. 3 / Fig. 2b; App. B",
        "Distributional similarity (MMD) is a poor predictor of corruption error while MSD tracks it: training on a mixture with only a small fraction of impulse noise keeps both impulse-noise error and MSD low, and over the powerset MMD correlates worse with error than MSD.",
        rows={
            "03_msd_powerset": (
                "Fig2b_error_low",
                "Fig2b_msd_low",
                "AppB_mmd_worse_retrain",
            )
        },
        quantifier="all",
        quote="MMD between the augmentation and corruption grows linearly while MSD and error stay low until nearly 0% mixing fraction.",
    ),
    Statement(
        "msd_cbar_every_scheme_degrades",
        "msd",
        "Abstract; Sec. 1; Sec. 5 / Table 1",
        "On the perceptually dissimilar CIFAR-10-C-bar (matched in baseline error) every augmentation scheme tested gains less over the baseline than on CIFAR-10-C.",
        rows={
            "04_msd_cifar10_c_bar": (
                "T1_less_gain_cbar_autoaugment",
                "T1_less_gain_cbar_augmix",
                "T1_less_gain_cbar_patch_gaussian",
            )
        },
        quantifier="all",
        quote="Indeed, every augmentation scheme performs worse.",
    ),
    Statement(
        "msd_cbar_inconsistent_ranking",
        "msd",
        "Sec. 1; Sec. 5 / Table 1",
        "Schemes degrade by very different amounts on C-bar (Patch Gaussian far more than AutoAugment), which reverses their ranking: Patch Gaussian beats AutoAugment on CIFAR-10-C but loses to it on CIFAR-10-C-bar.",
        rows={
            "04_msd_cifar10_c_bar": (
                "T1_delta_patch_gaussian_gt_autoaugment",
                "T1_rank_c",
                "T1_rank_cbar",
            )
        },
        quantifier="all",
        quote="Different augmentation schemes also degrade by significantly different amounts, from +0.7% for AutoAugment to +7.3% for PatchGaussian, which changes their ranking by corruption error",
    ),
    Statement(
        "msd_some_schemes_still_improve",
        "msd",
        "Sec. 1; Sec. 5 (end)",
        "Some augmentation schemes still improve over the baseline on the dissimilar corruptions, so progress towards general corruption robustness is real.",
        rows={
            "04_msd_cifar10_c_bar": (
                "T1_gain_cbar_autoaugment",
                "T1_gain_cbar_augmix",
                "T1_gain_cbar_patch_gaussian",
            )
        },
        quantifier="any",
        quote="Some augmentation schemes still show some improvement over baseline, which suggests meaningful progress towards general corruption robustness is being made",
    ),
    Statement(
        "rw_counterfactuals_insufficient_theory",
        "realworld",
        "Abstract; Sec. 1.1; Sec. 3.3 / Fig. 2; App. A; Sec. 6",
        "Theoretically, the distance to the closest counterfactual is not a valid measure of robustness to real-world perturbations: curved boundaries make it misorder points and diverge near corners, and it ignores anisotropic uncertainty.",
        rows={
            "07_realworld_analytical": (
                "A2-ranking-differs",
                "A2-corner-divergence",
                "S33-linear-anisotropic",
            )
        },
        quantifier="any|all",
        quote="showed theoretically why measures for adversarial robustness are not necessarily a valid measure for real-world-robustness",
    ),
    Statement(
        "rw_rankings_differ_empirically",
        "realworld",
        "Abstract; Sec. 1.1; Sec. 4.1.3 / Figs. 3-4; Sec. 4.2 / Fig. 6; Sec. 6",
        "In all three examples (Iris, Ionosphere, fog at Graz airport) adversarial / counterfactual robustness ranks the test points differently from real-world robustness, so the two measure different things.",
        rows={
            "05_realworld_iris_ionosphere": (
                "iris-ranking-differs",
                "ionosphere-ranking-differs",
            ),
            "06_realworld_fog": ("fog-adv-differs",),
        },
        quantifier="all",
        quote="we showed that also the ranking of robustness between different samples is not the same for adversarial robustness as for robustness to real-world-perturbations",
    ),
    Statement(
        "rw_perturbation_model_matters",
        "realworld",
        "Abstract; Sec. 4.1.3 / Fig. 5; Sec. 6",
        "The assumed perturbation distribution matters: on Iris, replacing the identity covariance by a random one of the same trace changes real-world robustness beyond Monte-Carlo noise, much more than on Ionosphere.",
        rows={
            "05_realworld_iris_ionosphere": (
                "fig5-iris-differs",
                "fig5-iris-vs-ionosphere",
            )
        },
        quantifier="all",
        quote="This shows that knowledge of the exact expected perturbations in the real-world is important for accurately estimating robustness",
    ),
    Statement(
        "rw_fog_no_prediction_likely_to_flip",
        "realworld",
        "Sec. 4.2 / Fig. 6",
        "For the fog classifier at Graz airport no test prediction has real-world robustness below 0.5, i.e. no prediction is more likely than not to change under the ERA5 ensemble uncertainty, which adversarial robustness could not reveal.",
        rows={"06_realworld_fog": ("fog-min-above-half",)},
        quantifier="all",
        quote="interestingly, for no point it is lower than 0.5. Thus for no prediction is it more likely than not that the predictions change under uncertain input values.",
    ),
    Statement(
        "acr_trivial_classifier_unbounded_acr",
        "acr",
        "Abstract; Sec. 1 (contributions); Theorem 1 / Sec. 4.1; Sec. 4.2; Sec. 8",
        "With a large enough certification budget N, a trivial classifier that always predicts the most frequent class reaches any ACR, and so eventually beats a classifier that is correct with a fixed p_A on every input.",
        rows={"08_acr_published_certifications": ("S42_toy_trivial_forever",)},
        quantifier="all",
        quote="ACR can be arbitrarily large for a classifier with large enough certification budget",
    ),
    Statement(
        "acr_budget_dependence",
        "acr",
        "Abstract; Sec. 4.1 (toy example); Sec. 8",
        "ACR comparisons depend on the certification budget: as N grows, the ACR order of the trivial classifier and a constant-p_A classifier flips and flips back.",
        rows={"08_acr_published_certifications": ("S41_toy_order_flips",)},
        quantifier="any",
        quote="the comparison using ACR has a strong dependence on the certification budget",
    ),
    Statement(
        "acr_easy_inputs_dominate",
        "acr",
        "Abstract; Sec. 1 (contributions); Sec. 4.2 / Fig. 2; Sec. 8",
        "At the standard budget (N = 1e5, alpha = 0.001) the same improvement of p_A raises the certified radius more than 1000 times as much on the easiest inputs as at p_A = 1/2.",
        rows={"08_acr_published_certifications": ("S42_easy_1000x",)},
        quantifier="all",
        quote="an improvement on easy inputs contributes much more to ACR than on hard inputs, more than 1000x in the extreme case",
    ),
    Statement(
        "acr_sota_trade_hard_for_easy",
        "acr",
        "Abstract; Sec. 1 (contributions); Sec. 4.3 / Fig. 3 / Table 2; Sec. 6 / Fig. 6; Sec. 8",
        "Every state-of-the-art RS training method, compared with Gaussian training, certifies fewer (hard) test inputs and puts relatively more gradient weight on easy inputs, at every sigma.",
        rows={
            "08_acr_published_certifications": (
                "F3_fewer_certified_s0.25",
                "F3_fewer_certified_s0.5",
                "F3_fewer_certified_s1.0",
                "T2_sota_heavier",
            )
        },
        quantifier="all",
        quote="Empirically, we show that all state-of-the-art (SOTA) strategies reduce the accuracy on hard inputs and only focus on easy inputs to increase ACR.",
    ),
    Statement(
        "acr_ours_sota_acr_cifar10",
        "acr",
        "Abstract; Sec. 1 (contributions); Sec. 6 / Table 3; Sec. 8",
        "The three simple modifications of Gaussian training reach a higher ACR on CIFAR-10 than every published baseline, at each sigma in {0.25, 0.5, 1.0}.",
        rows={
            "08_acr_published_certifications": (
                "T3_ours_best_acr_s0.25",
                "T3_ours_best_acr_s0.5",
                "T3_ours_best_acr_s1.0",
            )
        },
        quantifier="all",
        quote="Our method consistently outperforms all baselines on ACR",
    ),
    Statement(
        "acr_imagenet_recovery",
        "acr",
        "Sec. 1 (contributions); Sec. 6 / Table 4",
        "On ImageNet the modified Gaussian training recovers most of the best baseline's ACR advance over Gaussian training (94.6%, 96.5%, 85.2% at sigma 0.25, 0.5, 1.0).",
        rows={
            "08_acr_published_certifications": (
                "S6_imagenet_recovery_s0.25",
                "S6_imagenet_recovery_s0.5",
                "S6_imagenet_recovery_s1.0",
            )
        },
        quantifier="all",
        quote="Our method replicates a large portion of the ACR advances.",
    ),
    Statement(
        "acr_ablation_each_component_helps",
        "acr",
        "Sec. 6 (Ablation) / Table 5",
        "Each of the three components (discard hard data, reweight by certified radius, adaptive attack) alone raises ACR over Gaussian training, and all three together give the best ACR.",
        rows={
            "09_acr_rs_training": (
                "T5seq_s0.5_discard_gt_gaussian",
                "T5seq_s0.5_reweight_gt_gaussian",
                "T5seq_s0.5_attack_gt_gaussian",
                "T5seq_s0.5_all_gt_gaussian",
                "T5seq_s0.5_all_gt_discard",
                "T5seq_s0.5_all_gt_reweight",
                "T5seq_s0.5_all_gt_attack",
            )
        },
        quantifier="all",
        quote="When applied alone, all three components of our method improve ACR compared to Gaussian training.",
    ),
    Statement(
        "acr_recommend_ecdf_of_pA",
        "acr",
        "Abstract; Sec. 1; Sec. 7; Sec. 8; App. B",
        "Instead of ACR, report the empirical distribution (ECDF) of p_A: if one model's ECDF dominates another's, it is better under every certification budget, and the certified accuracy at any budget can be read from it.",
        rows={},
        reason="No existing row tests the recommendation's content. 08/B1_plugin_is_expectation tests an App. B.1 side remark (the plug-in reading equals the expected certified accuracy; erratum) and is listed under _not_central; 08/B1_ecdf_files_identity and 08/B2_round_trip check the authors' ECDF files and the B.1/B.2 maps at the original budget only; 08/B3_* compare the released models' ECDFs (App. B.3), not the claim that dominance transfers across budgets. A row to add (CPU only, from the released CIFAR-10 certification files): for every pair of models whose ECDFs are strictly ordered (the App. B.3 pairs), compute the expected certified accuracy E[1{Bin(N', p_A) >= k(r, N', alpha)}] at budgets N' in {1e2, 1e3, 1e4, 1e5} and the tabulated radii, and check that the dominating model is at least as good at every (N', r).",
        quantifier="all",
        quote="as long as one model has larger for every than another model, we can claim the former is better consistently in different certification settings",
    ),
)


# rows a notebook records as checks that are no statement of the paper (never central, whatever their code says)
NOT_CENTRAL: dict[str, dict[str, str]] = {
    "01_mscr_2d": {
        "F5a_1nn_clean_superior": "pooled mean over eps_train <= 0.007; 'for all' is judged on the per-level rows (statement mscr_1nn_constant_superior)",
        "F5b_1nn_mscr_superior": "pooled mean over eps_train <= 0.007; hides the contradicted level 0.007 at the paper profile; replaced by the per-level rows (statement mscr_1nn_constant_superior)",
    },
    "02_mscr_cifar10": {
        "T1_cifar_subset_bound": "not flagged central today and must not become so: 'our images' 2r is not below the full dataset's' holds for any subset by construction",
        "T1_cifar_2r": "Table 1's class-separation value is an input of the MSCR method (how eps_min is set), not a finding; the 2D counterpart 01/T1_2r is not central either; our 6000-image subset cannot reach it (not comparable)",
        "S4_cifar_noise_training_helps": "tests the premise the paper assumes from [10] (Sec. 3.2, Sec. 5.1: 'this claim is based on the assumption that increasing corruption robustness ... can be generated through training with higher noise levels'), not a result it claims",
    },
    "03_msd_powerset": {
        "Fig2b_mmd_linear": "holds by the linearity of the mean (the MMD of a mixture is linear in its fraction): it checks our estimator, not the paper's experiment",
    },
    "04_msd_cifar10_c_bar": {
        "T1_gain_c_autoaugment": "premise: that AutoAugment improves CIFAR-10-C error is prior work's result (Abstract: 'several new data augmentations have been proposed that significantly improve performance'), not this paper's finding",
        "T1_gain_c_augmix": "premise: AugMix's CIFAR-10-C gain is prior work's result (Hendrycks et al.), not this paper's finding",
        "T1_gain_c_patch_gaussian": "premise: Patch Gaussian's CIFAR-10-C gain is prior work's result (Lopes et al.), not this paper's finding",
    },
    "08_acr_published_certifications": {
        "THM1_unbounded_acr": "plugs the proof's own budget into the proof's own formula: a check of the arithmetic; Theorem 1's content is tested by S42_toy_trivial_forever (statement acr_trivial_classifier_unbounded_acr)",
        "B1_plugin_is_expectation": "App. B.1 side remark (the plug-in reading of the ECDF equals the expected certified accuracy at a cheaper budget); keep it as an erratum row, but it does not test the recommendation to report the ECDF of p_A (statement acr_recommend_ecdf_of_pA has no row)",
    },
}


def for_notebook(paper: str, notebook: str) -> list[Statement]:
    """The registered statements of ``paper`` that rows of ``notebook`` test."""
    return [s for s in STATEMENTS if s.paper == paper and notebook in s.rows]


def judge(ledgers, runs=None, statements=None) -> list[dict]:
    """Every registered statement judged on the saved ledgers of one profile (``ledgers``: their dicts, as
    :func:`robeval.core.ledger.load_ledgers` gives them). One dict per statement whose notebooks include one that
    ran: ``key``, ``paper``, ``source``, ``statement``, ``quantifier``, ``verdict`` (:func:`statement_verdict`),
    ``rows`` (``[{"notebook", "id", "verdict"}]``) and ``not_run`` (its notebooks without a ledger here). A
    notebook of the statement that the profile runs (``runs``: notebook stems; None: every notebook) but that has
    no ledger counts as a part not comparable, so a statement "for all" whose parts did not all run is not
    reproduced. ``statements``: the registry to judge (default :data:`STATEMENTS`)."""
    from fnmatch import fnmatchcase

    by_nb = {d["notebook"]: d for d in ledgers}
    out = []
    for st in STATEMENTS if statements is None else statements:
        if not st.rows:
            continue
        ran = [nb for nb in st.rows if nb in by_nb]
        if not ran:
            continue
        rows = [
            {"notebook": nb, "id": c["id"], "verdict": c["verdict"]}
            for nb in ran
            for c in by_nb[nb]["claims"]
            if not c.get("part_of") and any(fnmatchcase(c["id"], p) for p in st.rows[nb])
        ]
        not_run = [nb for nb in st.rows if nb not in by_nb]
        parts = [r["verdict"] for r in rows] + [NOT_COMPARABLE for nb in not_run if runs is None or nb in runs]
        out.append(
            {
                "key": st.key,
                "paper": st.paper,
                "source": st.source,
                "statement": st.statement,
                "quantifier": st.quantifier,
                "verdict": statement_verdict(parts, st.quantifier),
                "rows": rows,
                "not_run": not_run,
            }
        )
    return out


def _check() -> None:
    keys = [s.key for s in STATEMENTS]
    if len(set(keys)) != len(keys):
        raise ValueError("central statements need unique keys.")
    for s in STATEMENTS:
        if not s.rows and not s.reason:
            raise ValueError(f"{s.key}: a statement without rows must say why no row tests it (reason=).")
        readings_of(s.quantifier)


_check()
