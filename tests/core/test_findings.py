"""The "what we found" sentences: the display object and every paper's generators on hand-made frames."""

import numpy as np
import pandas as pd
import pytest

from robeval.acr import findings as acr_findings
from robeval.core import found
from robeval.core.publish.findings import Found, data_files, num, pct, share
from robeval.mscr import findings as mscr_findings
from robeval.msd import findings as msd_findings
from robeval.realworld import findings as rw_findings


def test_found_renders_markdown_and_text():
    f = found("One.", "", None, "Two.")
    assert isinstance(f, Found)
    assert f.sentences == ["One.", "Two."]
    assert f._repr_markdown_() == "**What we found.** One. Two."
    assert repr(f) == "What we found. One. Two."


def test_found_refuses_empty_long_and_a_bare_string():
    with pytest.raises(ValueError, match="at least one"):
        found("", None)
    with pytest.raises(ValueError, match="at most 5"):
        found(*[f"S{i}." for i in range(6)])
    with pytest.raises(TypeError, match="list of sentences"):
        Found("one string")


def test_found_shows_raw_html_and_markdown_as_text_and_refuses_non_text():
    """Probe J F13: found() put its sentences into the notebook's Markdown as they were: raw HTML ran, a line break
    opened a heading or a table; a number or frame was str()-ed. Now the Markdown is one line of text (as ledger text
    is) and a sentence that is not text is refused naming it."""
    f = found("<img src=x onerror=alert(1)>", "a | b\n# heading", "p < 0.05.")
    assert f._repr_markdown_() == "**What we found.** &lt;img src=x onerror=alert(1)> a | b # heading p < 0.05."
    assert f.text == "<img src=x onerror=alert(1)> a | b\n# heading p < 0.05."  # the plain text is as given
    for bad, shown in ((1, "int 1"), (np.float64(0.5), "float64"), (b"bytes", "bytes b'bytes'"), (["x"], "list")):
        with pytest.raises(TypeError, match=rf"^sentence 1 of a finding is {shown}.*not text; format its numbers"):
            found("One.", bad)
    with pytest.raises(TypeError, match=r"^sentence 0 of a finding is int 0"):
        found(0, "One.")  # a falsy number is refused too, not skipped as an empty sentence
    with pytest.raises(TypeError, match=r"^sentence 0 of a finding is int 2"):
        Found([2])


def test_formatters():
    assert num(0.0123456) == "0.0123"
    assert num(float("nan")) == "n/a"
    assert pct(0.1234) == "12.3%"
    assert share(3, 7) == "3 of 7"


def test_data_files_counts_and_names_failing_facts():
    files = pd.DataFrame({"verified": [True, True, False], "MB": [1.0, 2.0, 0.5]})
    facts = pd.DataFrame({"fact": ["a", "b"], "ok": [True, False]})
    text = data_files(files, facts).text
    assert "2 of 3 registered data files" in text and "(3.5 MB)" in text
    assert "1 of 2 known dataset facts hold; these do not: b." in text


def test_mscr_table1_shows_the_paper_only_for_dataset_b_linf():
    t = pd.DataFrame(
        {
            "norm": ["Linf", "L2"],
            "2r": [0.008026, 0.00847],
            "eps_min": [0.004013, 0.004235],
            "median per-point separation": [0.05, 0.06],
        }
    )
    text = mscr_findings.table1_2d(t, "B", "Linf").text
    assert "2r = 0.008026" in text and "(paper: 2r = 0.008026, eps_min = 0.004013)" in text
    assert "12 × eps_min" in text  # 0.05 / 0.004013 = 12.46
    assert "paper" not in mscr_findings.table1_2d(t, "A", "Linf").text
    with pytest.raises(ValueError, match="not a row"):
        mscr_findings.table1_2d(t, "B", "L1")


def test_mscr_table2a_counts_cells_within_threshold_and_names_the_only_full_match():
    z = {
        "ours (iid noise) vs the sheet": pd.DataFrame([[0.5, 3.0], [-2.5, 1.0]]),
        "ours (shared_offsets noise) vs the sheet": pd.DataFrame([[0.5, -1.0], [1.9, 0.0]]),
    }
    text = mscr_findings.table2a(z).text
    assert "2 of 4 cells lie within 1.96 se of the sheet (largest |z| 3.0)" in text
    assert "4 of 4 cells" in text
    assert text.endswith("Only ours (shared_offsets noise) matches every published cell.")


def test_mscr_seeding_margins_combine_in_quadrature():
    modes = pd.DataFrame(
        {"MSCR iid": [0.0, 0.1], "± iid": [0.03, 0.04], "MSCR published": [0.05, 0.1], "± published": [0.04, 0.01]},
        index=pd.Index([0.0, 0.03], name="eps_train"),
    )
    # row 0: |0 - 0.05| = 0.05 <= hypot(0.03, 0.04) = 0.05 -> within; row 1: 0 <= ... -> within
    assert "i.i.d. noise 2 of 2" in mscr_findings.seeding(modes).text
    modes.loc[0.0, "MSCR iid"] = -0.001  # 0.051 > 0.05
    assert "i.i.d. noise 1 of 2" in mscr_findings.seeding(modes).text


def test_mscr_optima_counts_rows_where_the_published_best_is_tied():
    t = pd.DataFrame(
        {
            "our best": ["0.01", "0.02"],
            "statistically tied with it": ["0.01, 0.02", "0.02"],
            "published best": ["0.01", "0.03"],
            "published best among ours": [True, False],
        }
    )
    text = mscr_findings.optima({"iid": t}).text
    assert text.startswith(
        "Under i.i.d. noise, the published best eps_train is statistically tied with our best in 1 of 2"
    )
    assert "not resolved" not in text  # median tie size 1.5 -> int 1


def test_msd_toy_mixture_linear_mmd_and_early_msd_drop():
    toy = pd.DataFrame({"fraction": [0.0, 0.1, 0.5, 1.0], "mmd": [2.0, 1.8, 1.0, 0.0], "msd": [2.0, 0.2, 0.1, 0.0]})
    text = msd_findings.toy_mixture(toy).text
    assert "Pearson r = -1.000" in text
    assert "MSD falls 90% of its whole way already at a fraction of 0.1" in text


def test_msd_table1_gains_against_the_papers():
    s = pd.DataFrame(
        {"gain_c": [0.0, 5.0], "gain_cbar": [0.0, 2.0], "paper_c_err": [27.0, 11.1], "paper_cbar_err": [27.1, 16.0]},
        index=["Baseline", "AugMix"],
    )
    text = msd_findings.table1(s).text
    assert "AugMix +5.0 / +2.0 (paper +15.9 / +11.1)" in text
    assert "1 of 1 methods gain less on C-bar than on C" in text


def test_msd_construction_overlap_and_chance():
    text = msd_findings.construction({"top": ["a", "b", "c"]}, ["b", "c", "d"], n_candidates=30).text
    assert "picks 2 of 3 of the published" in text and "(b, c)" in text
    assert "would share 0.3 on average" in text  # 3 * 3 / 30


def test_realworld_mc_check_judges_the_largest_z_by_a_family_wise_bound():
    s = pd.DataFrame({"points": [500, 500], "max_abs_z": [2.0, 3.5], "max_abs_err": [0.01, 0.02]})
    text = rw_findings.mc_check(s).text
    assert "within the family-wise 95% bound of 4.06 for 1000 points" in text  # Phi^-1(1 - 0.025/1000)
    s.loc[1, "max_abs_z"] = 4.5
    assert "beyond" in rw_findings.mc_check(s).text


def test_acr_recomputed_vs_printed_counts_rounding_matches():
    idx = pd.MultiIndex.from_tuples([(0.25, "gaussian"), (0.5, "gaussian")], names=["sigma", "method"])
    printed = pd.DataFrame({"ACR": [0.49, 0.57], "0.00": [80.4, 68.8]}, index=idx)
    ours = pd.DataFrame({"ACR": [0.4901, 0.59], "0.00": [80.43, 69.8]}, index=idx)
    text = acr_findings.recomputed_vs_printed(ours, printed, "Table 3").text
    assert "1 of 2 ACR values of Table 3" in text and "(largest difference 0.020)" in text
    assert "1 of 2 certified accuracies match" in text and "1.00 pp (sigma 0.5, gaussian, r = 0.00)" in text


def test_acr_best_over_sigma_groups_consecutive_radii():
    t = pd.DataFrame({"0.00": [80, 70], "0.25": [60, 65], "0.50": [40, 50]}, index=["gaussian", "ours"])
    text = acr_findings.best_over_sigma(t).text
    assert "belongs to gaussian at r = 0.00, and to ours at r = 0.25 to 0.50." in text


def test_acr_toy_budget_reports_order_changes():
    text = acr_findings.toy_budget(["trivial", "constant"], [20, 100], [28.0, 1039.0]).text
    assert "N = 20: trivial, N = 100: constant" in text and "changes at N = 28, 1039:" in text


def test_every_generator_returns_at_most_five_sentences():
    rng = np.random.default_rng(0)
    k = pd.DataFrame({"mean": rng.normal(99, 0.1, 4), "std": [0.3] * 4}, index=[1, 2, 5, 10])
    assert len(mscr_findings.k_effect(k).sentences) <= 5


def test_acr_table5_sequential_compares_gains_with_the_paper_per_sigma():
    idx = pd.MultiIndex.from_tuples([(0.5, "gaussian"), (0.5, "discard"), (0.5, "attack")], names=["sigma", "variant"])
    ours = pd.DataFrame({"ACR": [0.10, 0.16, 0.09], "seeds": [4, 4, 4]}, index=idx)
    paper = pd.DataFrame({"ACR": [0.525, 0.627, 0.701]}, index=idx)
    costs = pd.DataFrame({"ratio": [2.0, 2.04]})
    text = acr_findings.table5_sequential(ours, paper, costs, 10000).text
    assert "discard +0.060 (paper +0.102); attack -0.010 (paper +0.176)." in text
    assert "1 of 2 variants move ACR in the paper's direction (means over 4 seeds" in text
    assert "spent 2.0× fewer forward passes" in text  # 2.0 and 2.04 round alike


def test_within_budget_blanks_unmeasurable_radii_instead_of_zero():
    from robeval.acr.claim_rules import largest_radius
    from robeval.acr.training_tables import within_budget

    idx = pd.MultiIndex.from_tuples([(0.5, "gaussian")], names=["sigma", "variant"])
    t = pd.DataFrame({"ACR": [0.1], "0.00": [20.0], "0.75": [8.0], "1.00": [0.0]}, index=idx)
    assert 0.75 < largest_radius(100, 0.001, 0.5) < 1.0  # 0.5 * Phi^-1(0.001^(1/100)) = 0.767
    out = within_budget(t, 100, 0.001)
    assert list(out.columns) == ["ACR", "0.00", "0.75"]
    assert list(within_budget(t, 10000, 0.001).columns) == ["ACR", "0.00", "0.75", "1.00"]
    with pytest.raises(ValueError, match="index the table"):
        within_budget(t.reset_index(), 100, 0.001)
