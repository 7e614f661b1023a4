import pytest

from robeval import paths, profiles


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
    with pytest.raises(ValueError, match="smoke, default, paper"):
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
