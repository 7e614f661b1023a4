import re

import pytest

from robeval.core import paths, profiles


def test_profiles_resolve_and_override():
    s = profiles.resolve("data_and_environment", "smoke")
    assert s.profile == "smoke" and s.require_all_files is True
    assert "estimate" in s and "scaled_down" in s
    s2 = profiles.resolve("data_and_environment", "smoke", require_all_files=False)
    assert s2.require_all_files is False
    # None means "not overridden" (papermill default)
    assert profiles.resolve("data_and_environment", "smoke", require_all_files=None).require_all_files is True


def test_settings_are_immutable():
    s = profiles.resolve("data_and_environment", "default")
    with pytest.raises(AttributeError, match="immutable"):
        s.require_all_files = False


@pytest.mark.parametrize("profile", ["fast", "", "Default"])
def test_unknown_profile_names_choices(profile):
    with pytest.raises(ValueError, match="smoke, default, long, gpu, paper"):
        profiles.resolve("data_and_environment", profile)


def test_unknown_experiment_and_setting():
    with pytest.raises(ValueError, match="known experiments"):
        profiles.resolve("no_such_experiment", "smoke")
    with pytest.raises(ValueError, match="unknown setting 'n_runz'"):
        profiles.resolve("data_and_environment", "smoke", n_runz=3)
    with pytest.raises(ValueError, match="must be a bool"):
        profiles.resolve("data_and_environment", "smoke", require_all_files=3)


def test_every_experiment_resolves_under_every_profile():
    for exp in profiles.experiments():
        for prof in paths.PROFILES:
            if not profiles.defines(exp, prof):  # the gpu profile: only where a [gpu] table sizes it
                continue
            s = profiles.resolve(exp, prof)
            assert isinstance(s.get("estimate"), str), f"{exp}/{prof} lacks an estimate"
            assert isinstance(s.get("scaled_down"), str), f"{exp}/{prof} lacks scaled_down"


def test_output_locations_keep_smoke_out_of_the_tree():
    assert paths.figures_dir("default") == paths.ROOT / "figures"
    assert paths.figures_dir("smoke").is_relative_to(paths.ROOT / "build")
    assert paths.results_dir("smoke").is_relative_to(paths.ROOT / "build")
    assert paths.results_dir("default") == paths.ROOT / "results" / "default"
    with pytest.raises(ValueError, match="Unknown profile"):
        paths.results_dir("huge")


# ---------------------------------------------------------------------------------- setting validators
@pytest.mark.parametrize(
    "value,spec,error",
    [
        (True, "int >= 0", TypeError),  # a bool is not a seed
        (-5, "int >= 1", ValueError),
        ("l3", ["linf", "l2"], ValueError),
        ("Z", ["A", "B", "C"], ValueError),
        (5, "float > 0, < 1", ValueError),
        (0.0, "float > 0, < 1", ValueError),
        ([0.1, -0.2], "list[float >= 0]", ValueError),
        ([1, "a"], "list[int]", TypeError),
        (["none", "cutout"], "list[choice(none, augmix)]", ValueError),
        ([], "list[int] >= 1", ValueError),
        (float("nan"), "float", ValueError),
        ([1, 1], "list[int >= 0] >= 1, distinct", ValueError),  # probe J, F12
        (2**63, "int >= 0, <= 9223372036854775807", ValueError),  # compared as an int, not float(2**63 - 1)
    ],
)
def test_check_value_rejects(value, spec, error):
    from robeval.core.profiles import check_value

    with pytest.raises(error, match="setting 'x"):
        check_value(value, spec, "x")


@pytest.mark.parametrize(
    "value,spec",
    [
        (3, "int >= 1"),
        (0.2, "float > 0, < 1"),
        (1, "float >= 0"),
        ("l2", ["linf", "l2"]),
        ([0.5, 1.0], "list[float > 0]"),
        (["none", "augmix"], "list[choice(none, augmix)]"),
        ([[1.0, 0.5], [0.5, 1.0]], "list[list[float]]"),
        (False, "bool"),
        ([2, 1], "list[int >= 0] >= 1, distinct"),
        (["a", "b"], "list[str] distinct"),
        (2**63 - 1, "int >= 0, <= 9223372036854775807"),
    ],
)
def test_check_value_accepts(value, spec):
    from robeval.core.profiles import check_value

    assert check_value(value, spec, "x") == value


def test_every_setting_has_a_validator_that_its_values_pass():
    """Each experiment's [validate] table covers every setting, and every profile's values pass it."""
    from robeval.core.profiles import PROFILES, defines, experiments, known_settings, resolve, validators

    for exp in experiments():
        missing = known_settings(exp) - set(validators(exp))
        assert not missing, f"settings/{exp}.toml: no validator for {sorted(missing)}"
        for profile in PROFILES:
            if defines(exp, profile):
                resolve(exp, profile)  # raises if a profile's own value breaks its validator


def test_overrides_are_validated():
    from robeval.core.profiles import resolve

    with pytest.raises(TypeError, match="seed"):
        resolve("realworld_analytical", "smoke", seed=True)
    with pytest.raises(ValueError, match="n_samples"):
        resolve("realworld_analytical", "smoke", n_samples=-5)


def test_every_seed_setting_is_refused_beyond_64_bits_before_anything_runs():
    """Probe J F12: ``-p seed=10**30`` passed the pre-run check and failed inside notebook 01 (run_seeds). Every
    seed setting's validator now bounds it below 2**63, so resolve() (and the check before `robeval run`) refuses it
    naming the setting; 2**63 - 1 is still a seed."""
    from robeval.core.profiles import experiments, resolve, validators

    seeded = {e: k for e in experiments() for k in validators(e) if k in ("seed", "seeds")}
    assert len(seeded) == 8 and seeded["acr_rs_training"] == "seeds"
    for exp, key in seeded.items():
        wrap = (lambda v: [0, v]) if key == "seeds" else (lambda v: v)
        where = "seeds[1]" if key == "seeds" else "seed"
        assert resolve(exp, "default", **{key: wrap(2**63 - 1)})[key] == wrap(2**63 - 1)
        for bad in (2**63, 10**30):
            with pytest.raises(
                ValueError, match=rf"^{exp}: setting '{re.escape(where)}' must be >= 0, <= {2**63 - 1}, got {bad}"
            ):
                resolve(exp, "default", **{key: wrap(bad)})


def test_the_library_works_outside_a_checkout(tmp_path):
    """Installed from a wheel (no project root above it), the data layer uses the user cache and the
    corruptions run; only what writes project results asks for a checkout, with a clear message."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import robeval

    site = tmp_path / "site"
    shutil.copytree(Path(robeval.__file__).parent, site / "robeval", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import numpy as np, robeval, robeval.core.paths as p\n"
        "from robeval.core.data import load_frost_images\n"
        "from robeval.transforms import corrupt\n"
        "assert p.find_root() is None, p.find_root()\n"
        f"assert str(p.cache_dir()).startswith({str(tmp_path / 'xdg')!r}), p.cache_dir()\n"
        "assert len(load_frost_images()) == 6\n"
        "x = np.full((2, 32, 32, 3), 128, np.uint8)\n"
        "assert corrupt(x, 'frost', 1, seed=0).shape == x.shape\n"
        "try:\n"
        "    p.results_dir('smoke')\n"
        "except RuntimeError as e:\n"
        "    assert 'checkout' in str(e)\n"
        "else:\n"
        "    raise SystemExit('results_dir outside a checkout must fail')\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("ROBEVAL_ROOT", "ROBEVAL_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_gpu_profile_sits_between_default_and_paper_and_is_defined_per_experiment():
    from robeval.core.catalog import notebooks_for_profile

    assert paths.PROFILES == ("smoke", "default", "long", "gpu", "paper")
    assert profiles.defines("acr_rs_training", "gpu") and not profiles.defines("mscr_2d", "gpu")
    assert all(profiles.defines(e, p) for e in profiles.experiments() for p in ("smoke", "default", "paper"))
    s = profiles.resolve("acr_rs_training", "gpu")
    # sized to decide Table 5 (issue 39): >= 10 seeds, a CIFAR ResNet, certify_table up to n_max = 100000 on >= 200
    # test images of every model, all 5000 subset images
    assert len(s["seeds"]) >= 10 and s["arch"].startswith("resnet") and s["n_train"] == 5000
    assert s["seq_n_max"] == 100_000 and s["seq_table_images"] >= 200
    assert all(isinstance(s[k], str) and s[k] for k in ("estimate", "scaled_down", "mechanism"))
    with pytest.raises(ValueError, match=r"mscr_2d has no \[gpu\] table.*defined for acr_rs_training"):
        profiles.resolve("mscr_2d", "gpu")
    assert [p.stem for p in notebooks_for_profile("gpu")] == [
        "02_mscr_cifar10",
        "03_msd_powerset",
        "04_msd_cifar10_c_bar",
        "09_acr_rs_training",
    ]
    with pytest.raises(ValueError, match="not defined for 01_mscr_2d"):
        notebooks_for_profile("gpu", "01,09")
    assert paths.results_dir("gpu") == paths.ROOT / "results" / "gpu"
    assert paths.figures_dir("gpu").is_relative_to(paths.ROOT / "build")


def test_the_long_profile_sits_between_default_and_gpu_and_is_defined_where_a_notebook_has_its_table():
    """Issue 63: ``long`` (hours of a 2-core CPU, in chunks) is optional like ``gpu``; notebook 04 runs the gpu
    profile's protocol there (every training key and size equal, one process per core), its results go to
    results/long, and a row comparable at default and paper is comparable at long too."""
    from robeval.core.catalog import notebooks_for_profile
    from robeval.core.ledger import comparable_span

    assert "long" in profiles.OPTIONAL_PROFILES and not profiles.defines("mscr_2d", "long")
    assert [p.stem for p in notebooks_for_profile("long")] == [
        "02_mscr_cifar10",
        "03_msd_powerset",
        "04_msd_cifar10_c_bar",
        "09_acr_rs_training",
    ]
    long, gpu = profiles.resolve("msd_cifar10_c_bar", "long"), profiles.resolve("msd_cifar10_c_bar", "gpu")
    differ = {k for k in gpu if k not in ("n_jobs", "estimate", "scaled_down") and long[k] != gpu[k]}
    assert not differ and long["n_jobs"] == 2 and "scaled replication" in long["scaled_down"]
    assert comparable_span(("default", "paper")) == ("default", "long", "gpu", "paper")
    assert comparable_span(("gpu", "paper")) == ("gpu", "paper")
    with pytest.raises(ValueError, match="not defined for 01_mscr_2d"):
        notebooks_for_profile("long", "01,04")
    assert paths.results_dir("long") == paths.ROOT / "results" / "long"


def test_the_long_tables_of_02_and_09_keep_the_gpu_profiles_network_and_label_what_they_cut():
    """Issue 63: 02's long profile trains the gpu profile's ResNet-20 for the paper's 30 epochs and schedule (not
    160: its rows about the accuracy-robustness balance stay open by net_bound, which the mechanism says), >= 3 runs;
    09's keeps the gpu profile's training and cuts the sequential certification to n_max = 10^4 on 100 images, a
    budget change its texts name; both run one process per core and are judged rows (no pipeline check)."""
    m_long, m_gpu = profiles.resolve("mscr_cifar10", "long"), profiles.resolve("mscr_cifar10", "gpu")
    m_paper = profiles.resolve("mscr_cifar10", "paper")
    assert m_long["arch"] == m_gpu["arch"] == "resnet20" and m_long["runs"] >= 3 and m_long["n_jobs"] == 2
    assert (m_long["epochs"], m_long["milestones"]) == (m_paper["epochs"], m_paper["milestones"]) == (30, [10, 20])
    assert m_long["pipeline_check"] == "" and "net_bound" in m_long["mechanism"] and "160" in m_long["mechanism"]
    a_long, a_gpu = profiles.resolve("acr_rs_training", "long"), profiles.resolve("acr_rs_training", "gpu")
    training = ("arch", "n_train", "epochs", "batch_size", "milestones", "num_noise", "discard_epoch", "attack_steps")
    assert {k: a_long[k] for k in training} == {k: a_gpu[k] for k in training}
    assert a_long["seq_n_max"] == 10**4 and a_long["seq_table_images"] == 100 and a_long["pipeline_check"] == ""
    assert set(a_long["seeds"]) < set(a_gpu["seeds"]) and a_long["n_jobs"] == 2
    assert "budget change" in a_long["scaled_down"] and "1.599" in a_long["mechanism"]
    for exp in ("mscr_cifar10", "acr_rs_training"):
        assert re.fullmatch(r"~[\d.]+ h", profiles.notebook_cost(exp, "long"))


def test_the_gpu_tables_of_the_mscr_and_msd_notebooks_are_sized_to_decide():
    """Issue 37: 04 trains every method from scratch in >= 10 runs; 03 retrains >= 32 schemes from scratch for a
    full training, drawn from schemes that have an MSD, and trains the Fig. 2b networks as long; 02 runs >= 10
    trainings per eps_train of a network of the CIFAR ResNet family; 03 and 04 share their networks; each table
    says what it costs (not yet measured), what it scales down and which mechanism survives."""
    from robeval.msd import nets
    from robeval.msd.powerset import retrain_scheme_list, sample_powerset_schemes

    c04 = profiles.resolve("msd_cifar10_c_bar", "gpu")
    assert c04["n_runs"] >= 10 and c04["finetune_epochs"] == 0
    c03 = profiles.resolve("msd_powerset", "gpu")
    assert {k: c03[k] for k in nets.TRAIN_KEYS} == {k: c04[k] for k in nets.TRAIN_KEYS}
    assert c03["retrain_init"] == "scratch" and c03["retrain_epochs"] >= c03["epochs"]
    retrained = retrain_scheme_list(c03["retrain_schemes"], sample_powerset_schemes(c03["n_schemes"], 0), 0)
    assert len(retrained) >= 32 and c03["toy_epochs"] >= c03["epochs"]
    c02 = profiles.resolve("mscr_cifar10", "gpu")
    assert c02["runs"] >= 10 and c02["arch"].startswith("resnet") and c02["n_train"] == 5000
    for c in (c02, c03, c04):
        assert all(isinstance(c[k], str) and c[k] for k in ("estimate", "scaled_down", "mechanism"))
        assert "not yet measured" in c["estimate"]


def test_setup_takes_an_experiment_name_not_a_path(tmp_path):
    """Probe E #11: setup took a path as the experiment's name, loaded the TOML file there and made the results
    folder beside it (setup("/tmp/x/evil") made /tmp/x/evil). (`resolve` still reads settings/<name>.toml for any
    name; it reaches the grid cells of notebooks 02 and 04, whose committed packs fix its code.)"""
    import shutil
    from pathlib import Path

    from robeval.core import setup
    from robeval.core.profiles import load_table

    shutil.copy(Path(load_table.__code__.co_filename).with_name("settings") / "mscr_2d.toml", tmp_path / "evil.toml")
    for name in (str(tmp_path / "evil"), "../settings/mscr_2d", None):
        with pytest.raises(ValueError, match="Unknown experiment .*; known experiments: .*mscr_2d"):
            setup(name, "smoke")
    assert not (tmp_path / "evil").exists()


@pytest.mark.parametrize(
    "notebook, parameters, said",
    [
        ("09", {"seeds": [1, 1]}, r"09_acr_rs_training: acr_rs_training: setting 'seeds' lists 1 twice"),
        (
            "09",
            {"seeds": [0, 2**63]},
            r"setting 'seeds\[1\]' must be >= 0, <= 9223372036854775807, got 9223372036854775808",
        ),
        ("01", {"seed": 10**30}, r"01_mscr_2d: mscr_2d: setting 'seed' must be >= 0, <= 9223372036854775807"),
    ],
)
def test_repeated_seeds_and_huge_seeds_stop_before_anything_runs(notebook, parameters, said):
    """Probe J, F12: repeated seeds and a seed of 1e30 passed the pre-run check and stopped inside the notebook
    (notebook 09's grid: "duplicate cells", which names no setting; 01's run_seeds). The settings validators
    refuse them by name, so ``robeval run -p ...`` stops before anything runs."""
    from robeval.core.catalog import notebook_paths
    from robeval.core.notebooks.runner import check_parameters

    with pytest.raises(ValueError, match=said):
        check_parameters(notebook_paths(notebook), "default", parameters)


@pytest.mark.parametrize(
    "experiment, setting, value, said",
    [
        ("acr_rs_training", "sigmas", [0.5, 0.5], r"setting 'sigmas' lists 0\.5 twice; pass each value once"),
        ("mscr_2d", "eps_levels", [0.1, 0.2, 0.1], r"setting 'eps_levels' lists 0\.1 twice"),
        ("mscr_2d", "k_effect_ks", [1, 1], r"setting 'k_effect_ks' lists 1 twice"),
        ("mscr_cifar10", "eps_train", [0.0, 0.0], r"setting 'eps_train' lists 0\.0 twice"),
        ("realworld_iris_ionosphere", "iris_classes", [1, 1], r"setting 'iris_classes' lists 1 twice"),
        ("acr_published_certifications", "toy_budgets", [20, 20], r"setting 'toy_budgets' lists 20 twice"),
        ("acr_published_certifications", "appb_readings", [3, 3], r"setting 'appb_readings' lists 3 twice"),
        (
            "acr_published_certifications",
            "theorem1_targets",
            [0.5, 0.5],
            r"setting 'theorem1_targets' lists 0\.5 twice",
        ),
        ("msd_powerset", "seed", 2**63, r"setting 'seed' must be >= 0, <= 9223372036854775807"),
    ],
)
def test_settings_refuse_repeated_list_entries(experiment, setting, value, said):
    """Probe J, F12: a repeated class (iris_classes [1, 1]: a two-class problem with one class), sigma, eps level,
    k, budget, reading or target was accepted by resolve(); each is refused naming the setting."""
    with pytest.raises(ValueError, match=rf"{experiment}: {said}"):
        profiles.resolve(experiment, "default", **{setting: value})
