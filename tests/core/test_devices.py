"""core.env.usable_device: the one device check of every public function that takes ``device=`` (probe F #4, #13)."""

import pytest
import torch

from robeval.core.env import usable_device


def test_usable_devices_come_back_as_torch_devices():
    assert usable_device("cpu") == torch.device("cpu")
    assert usable_device(torch.device("cpu")) == torch.device("cpu")
    assert usable_device("cpu:0") == torch.device("cpu", 0)


@pytest.mark.parametrize(
    ("device", "error", "message"),
    [
        (1.5, TypeError, r"^net_device must be a torch device name .*got 1.5 of type float\.$"),
        (True, TypeError, r"^net_device must be a torch device name .*got True of type bool\.$"),
        (None, TypeError, r"^net_device must be a torch device name .*got None of type NoneType\.$"),
        ("gpu", ValueError, r"^net_device='gpu' is not a torch device name; pass one such as 'cpu'"),
        ("CPU", ValueError, r"^net_device='CPU' is not a torch device name"),
        (-1, ValueError, r"^net_device=-1 is not a torch device name"),
        ("meta", ValueError, r"^net_device='meta' holds no data \(torch's 'meta' device\); pass 'cpu'"),
    ],
)
def test_a_device_that_cannot_compute_here_is_named_with_its_argument(device, error, message):
    with pytest.raises(error, match=message):
        usable_device(device, "net_device")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
@pytest.mark.parametrize("device", ["cuda", "cuda:1", 0])
def test_a_gpu_asked_for_where_torch_sees_none(device):
    with pytest.raises(ValueError, match=rf"^device={device!r} asks for a GPU, but torch sees none on this machine"):
        usable_device(device)


@pytest.mark.skipif(torch.backends.mps.is_available(), reason="this machine has an MPS device")
def test_a_backend_torch_knows_but_this_build_lacks():
    with pytest.raises(ValueError, match=r"^device='mps' cannot be used on this machine \(.+\); pass 'cpu'\.$"):
        usable_device("mps")
