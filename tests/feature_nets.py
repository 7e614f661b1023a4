"""A tiny network with a ``features`` method, for the tests of ``robeval.msd.model_feature_fn``."""

from __future__ import annotations


def feature_net():
    """A linear map of flattened 3x32x32 images to 4 features (``features`` and ``forward`` alike), seeded."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3 * 32 * 32, 4)

        def features(self, x):
            return self.lin(x.flatten(1))

        def forward(self, x):
            return self.features(x)

    torch.manual_seed(0)
    return Net()
