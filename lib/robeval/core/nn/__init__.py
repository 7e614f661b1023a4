"""Neural networks in torch: the architectures the papers train, one training loop, and the fused trainer.

* :mod:`.models` — the CIFAR architectures (small CNN, ResNet-8/20/110, WRN-28-10/40-2, MLP) by name;
* :mod:`.training` — :func:`~robeval.core.nn.training.train` (seeded, one thread count per run), prediction and
  feature extraction in batches;
* :mod:`.checks` — the trainers' and the inference functions' input contract (images, labels, SGD settings,
  seeds, the model's channels), one error naming the argument before anything trains or the model moves;
* :mod:`.fused` — many small networks of one architecture trained as one grouped network (bit-for-bit the same
  per network as training each alone).

Importing this package loads torch; below it, it imports only base modules of :mod:`robeval.core` (env, io,
validation). Nothing here knows about
grids, ledgers or notebooks.
"""

from robeval.core.nn.models import ARCHS, build, from_config, load_from_config
from robeval.core.nn.training import accuracy, extract_features, predict, predict_logits, predict_proba, train

__all__ = [
    "ARCHS",
    "accuracy",
    "build",
    "extract_features",
    "from_config",
    "load_from_config",
    "predict",
    "predict_logits",
    "predict_proba",
    "train",
]
