"""Probe M on robeval.core.nn: no cap on ``threads`` (M5), ``milestones`` / ``nesterov`` unchecked (M13), size
options converted by ``from_config`` before ``build`` checks them (M12)."""

import numpy as np
import pytest
import torch

from robeval.core import nn
from robeval.core.nn import fused, training


@pytest.fixture
def mlp():
    """A seeded 4-feature MLP of 2 classes, 6 rows and their labels."""
    torch.manual_seed(0)
    m = nn.build("mlp", num_classes=2, in_features=4, hidden=(8,))
    x = np.random.default_rng(0).random((6, 4)).astype(np.float32)
    return m, x, np.array([0, 1, 0, 1, 1, 0])


def _weights(m):
    return [p.detach().clone() for p in m.parameters()]


# ------------------------------------------------------------------------------------------- M5: threads capped
_THREADS = r"""
import os, sys
import numpy as np, torch
from robeval.core import nn
torch.manual_seed(0)
m = nn.build("mlp", num_classes=2, in_features=4, hidden=(8,))
x = np.random.default_rng(0).random((6, 4)).astype(np.float32)
y = np.array([0, 1, 0, 1, 1, 0])
for env, threads in ((None, 10**6), ("1000000", None)):
    if env:
        os.environ["ROBEVAL_TRAIN_THREADS"] = env
    try:
        nn.train(m, x, y, epochs=1, batch_size=3, progress=False, flip_crop_aug=False, threads=threads)
        print("trained", flush=True)
    except ValueError as exc:
        print("refused:", exc, flush=True)
"""


def test_train_refuses_a_thread_count_above_the_cap_before_torch_sees_it():
    # M5: threads=10**6 (or ROBEVAL_TRAIN_THREADS=1000000) reached torch.set_num_threads, which killed the
    # interpreter (SIGSEGV, rc -11): run in a child process, so that the old code fails this test, not the session
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ROBEVAL_TRAIN_THREADS"}
    done = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "refused: threads must be at most 1024 (torch threads of one training; more is a typo, and torch's thread pool "
        "crashes the interpreter at 100,000), got 1,000,000; pass the thread count the run is made with, e.g. "
        "threads=2.",
        "refused: ROBEVAL_TRAIN_THREADS must be at most 1024 (torch threads of one training; more is a typo, and "
        "torch's thread pool crashes the interpreter at 100,000), got 1,000,000; set it to the thread count the run is "
        "made with, e.g. ROBEVAL_TRAIN_THREADS=2, or unset it (2).",
    ]


def test_thread_counts_above_the_cap_are_refused_by_name(monkeypatch):
    before = torch.get_num_threads()
    with pytest.raises(ValueError, match=r"^threads must be at most 1024 \(torch threads of one training.*got 1,025;"):
        training.fixed_threads(1025)
    assert torch.get_num_threads() == before
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "2000")
    with pytest.raises(ValueError, match=r"^ROBEVAL_TRAIN_THREADS must be at most 1024 .*got 2,000; set it"):
        training.train_threads()
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1024")
    assert training.train_threads() == 1024 == training.MAX_THREADS


def test_train_fused_refuses_a_thread_count_above_the_cap():
    fz = fused.build_fused("cnn_small", 2, seeds=[0, 1], num_classes=2, width=2)
    x = np.zeros((2, 3, 32, 32), np.float32)
    with pytest.raises(ValueError, match=r"^threads must be at most 1024 .*got 5,000;"):
        fused.train_fused(fz, x, np.array([0, 1]), seeds=[0, 1], epochs=0, device="cpu", threads=5000)


# ------------------------------------------------------------------------------- M13: milestones and nesterov
@pytest.mark.parametrize(
    "milestones, kind, said",
    [
        (
            "3",
            TypeError,
            r"^milestones must be a list of epochs, got str '3'; pass whole epochs, e\.g\. milestones=\[10, 20\]\.$",
        ),
        (3, TypeError, r"^milestones must be a list of epochs, got int 3; pass whole epochs"),
        ([1.5], TypeError, r"^milestones must hold whole epochs \(integers >= 1\), got 1\.5 in \[1\.5\]; pass whole"),
        ([2.0], TypeError, r"^milestones must hold whole epochs \(integers >= 1\), got 2\.0 in \[2\.0\]"),
        ([True], TypeError, r"^milestones must hold whole epochs \(integers >= 1\), got True in \[True\]"),
        (["2"], TypeError, r"^milestones must hold whole epochs \(integers >= 1\), got '2' in \['2'\]"),
        (
            [-1],
            ValueError,
            r"^milestones must hold epochs >= 1, got -1 in \[-1\] \(epoch -1 never comes: the rate would never decay "
            r"there\); pass whole epochs, e\.g\. milestones=\[10, 20\]\.$",
        ),
        ([1, 0], ValueError, r"^milestones must hold epochs >= 1, got 0 in \[1, 0\] \(epoch 0 never comes"),
    ],
)
def test_train_refuses_milestones_that_are_no_whole_epochs(mlp, milestones, kind, said):
    # M13: '3' never decayed the rate (the text was repeated by `m * steps_per_epoch`), [1.5] decayed it mid-epoch,
    # [-1] never; all accepted by train
    m, x, y = mlp
    w = _weights(m)
    with pytest.raises(kind, match=said):
        nn.train(m, x, y, epochs=2, batch_size=3, schedule="step", milestones=milestones, progress=False,
                 flip_crop_aug=False)  # fmt: skip
    assert all(torch.equal(a, b) for a, b in zip(w, _weights(m)))  # refused before any step
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(kind, match=said):
        training.lr_scheduler(opt, "step", 4, 2, milestones)


def test_step_schedule_of_whole_epochs_decays_as_documented():
    # milestones [1] with 2 steps an epoch: the rate falls after step 2; one after the last epoch never applies
    def rates(milestones):
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        sched = training.lr_scheduler(opt, "step", 4, 2, milestones, gamma=0.1)
        out = []
        for _ in range(8):
            opt.step()
            sched.step()
            out.append(round(opt.param_groups[0]["lr"], 6))
        return out

    assert rates([1]) == [0.1, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01]
    assert rates((1, 3)) == rates(np.array([1, 3])) == [0.1, 0.01, 0.01, 0.01, 0.01, 0.001, 0.001, 0.001]
    assert rates([10, 20]) == rates(None) == rates([]) == [0.1] * 8


@pytest.mark.parametrize("nesterov", ["no", 1, None, 0.0])
def test_train_refuses_a_nesterov_that_is_no_bool(mlp, nesterov):
    # M13: train(nesterov='no') was read as True
    m, x, y = mlp
    with pytest.raises(TypeError, match=rf"^nesterov must be True or False, got {nesterov!r} \("):
        nn.train(m, x, y, epochs=1, batch_size=3, nesterov=nesterov, progress=False, flip_crop_aug=False)


def test_train_fused_checks_milestones_and_nesterov():
    fz = fused.build_fused("cnn_small", 2, seeds=[0, 1], num_classes=2, width=2)
    x, y = np.zeros((2, 3, 32, 32), np.float32), np.array([0, 1])
    with pytest.raises(TypeError, match=r"^milestones must be a list of epochs, got str '3'"):
        fused.train_fused(fz, x, y, seeds=[0, 1], epochs=1, device="cpu", schedule="step", milestones="3")
    with pytest.raises(TypeError, match=r"^nesterov must be True or False, got 'no' \(str\)"):
        fused.train_fused(fz, x, y, seeds=[0, 1], epochs=1, device="cpu", nesterov="no")


# ------------------------------------------------------------------------- M12: from_config passes options as given
def _params(model):
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(
    "config, kind, said",
    [
        ({"arch": "cnn_small", "width": 4.9}, TypeError, r"^config\['width'\] must be an integer >= 1, got 4\.9; give e\.g\. 'width': 32\.$"),
        ({"arch": "cnn_small", "width": True}, TypeError, r"^config\['width'\] must be an integer >= 1, got True; give"),
        ({"arch": "cnn_small", "width": "4"}, TypeError, r"^config\['width'\] must be an integer >= 1, got '4'; give"),
        ({"arch": "cnn_small", "width": 0}, ValueError, r"^config\['width'\] must be an integer >= 1, got 0; give e\.g\. 'width': 32\.$"),
        ({"arch": "cnn_small", "width": float("nan")}, TypeError, r"^config\['width'\] must be an integer >= 1, got nan"),
        ({"arch": "cnn_small", "width": 5000}, ValueError, r"^config\['width'\] must be at most 1024 \(a larger network is a typo\), got 5,000\.$"),
        ({"arch": "wrn40_2", "widen": 1.7}, TypeError, r"^config\['widen'\] must be an integer >= 1, got 1\.7; give e\.g\. 'widen': 10\.$"),
        ({"arch": "wrn40_2", "widen": "2"}, TypeError, r"^config\['widen'\] must be an integer >= 1, got '2'"),
        ({"arch": "wrn40_2", "widen": True}, TypeError, r"^config\['widen'\] must be an integer >= 1, got True"),
        ({"arch": "wrn40_2", "widen": 0.0}, TypeError, r"^config\['widen'\] must be an integer >= 1, got 0\.0"),
        ({"arch": "wrn40_2", "dropout": "0.3"}, TypeError, r"^config\['dropout'\] must be a probability in \[0, 1\), e\.g\. 0\.3, got '0\.3'\.$"),
        ({"arch": "wrn28_10", "dropout": 1.5}, ValueError, r"^config\['dropout'\] must be a probability in \[0, 1\), e\.g\. 0\.3, got 1\.5\.$"),
    ],
)  # fmt: skip
def test_from_config_refuses_the_size_options_build_refuses(config, kind, said, tmp_path):
    # M12: int(4.9) -> 4, True -> 1, '4' -> 4, 0 -> the default 32, nan -> "cannot convert float NaN to integer",
    # widen 1.7 -> 1, '2' -> 2, dropout '0.3' parsed: build's checks saw only the converted value
    with pytest.raises(kind, match=said):
        nn.from_config(config, 2)
    with pytest.raises(kind, match=said):
        nn.load_from_config(config, tmp_path / "never-read.pt", 2)


def test_from_config_builds_the_configs_the_library_writes():
    # None is absent; widen 0 (an integer) keeps the name's factor, as documented; options of another arch ignored
    assert _params(nn.from_config({"arch": "cnn_small", "width": 4}, 2)) == 2422
    assert _params(nn.from_config({"arch": "cnn_small", "width": np.int64(4)}, 2)) == 2422
    assert _params(nn.from_config({"arch": "cnn_small", "width": None}, 2)) == _params(nn.build("cnn_small", 2))
    assert _params(nn.from_config({"arch": "wrn40_2", "widen": 0, "dropout": 0}, 2)) == _params(nn.build("wrn40_2", 2))
    assert _params(nn.from_config({"arch": "wrn40_2", "widen": 1}, 2)) == 563410
    assert _params(nn.from_config({"arch": "resnet8", "width": 0, "widen": "x"}, 2)) == _params(nn.build("resnet8", 2))


def test_mscr_cifar_settings_width_0_still_means_the_default_width():
    # the mscr_cifar10 settings document width = 0 as "the model's default": notebook 02's cells keep building it
    from robeval.core.profiles import resolve
    from robeval.mscr import cifar

    settings = resolve("mscr_cifar10", "smoke", width=0)
    config = cifar.config_cifar(settings, [0.0])
    assert config["arch"] == "cnn_small" and config["width"] == 0
    torch.manual_seed(0)
    built = cifar._build(config)
    torch.manual_seed(0)
    default = nn.build("cnn_small", 10)
    assert all(torch.equal(a, b) for a, b in zip(built.state_dict().values(), default.state_dict().values()))


# ------------------------------------------------------------------------------------------------- minors
def test_inference_on_an_empty_batch_keeps_the_output_width(net, mlp):
    # minor: predict_proba / extract_features of an empty batch returned shape (0,), not (0, C) / (0, D)
    m, x, _ = net
    empty = x[:0]
    assert nn.predict_logits(m, empty).shape == (0, 10) and nn.predict_logits(m, empty).dtype == np.float32
    assert nn.predict_proba(m, empty).shape == (0, 10)
    assert nn.extract_features(m, empty).shape == (0, 128)
    assert nn.predict(m, empty).shape == (0,) and nn.predict(m, empty).dtype == np.int64
    model, rows, _ = mlp
    assert nn.predict_proba(model, rows[:0]).shape == (0, 2)
    assert nn.extract_features(model, rows[:0]).shape == (0, 8)
