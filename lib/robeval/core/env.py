"""Hardware, devices, the CPU-kernel pins of the compendium's own runs, and environment variables set for a block.

:func:`pin_cpu_kernels` makes numpy, OpenBLAS, torch, oneDNN and MKL choose the same (AVX2) code paths on
every x86 machine, so that numpy's results give the same bits elsewhere (torch training only on the same CPU
type: oneDNN sizes its convolution blocks from the caches). ``robeval run`` and the notebooks' kernel apply it;
a plain ``import robeval`` changes nothing in the user's process.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import warnings
from collections.abc import Mapping

# Environment read once by each library when it is imported (so they must be set before that import).
# NPY_DISABLE_CPU_FEATURES: numpy's SIMD dispatch (its AVX-512 loops of exp/log/sin/... round differently);
# OPENBLAS_CORETYPE: OpenBLAS's kernels (the bundled, dynamic-arch build); the other three: torch's ATen,
# oneDNN and MKL. Names as numpy >= 2.4 spells its feature groups (`np.show_runtime()`).
PINNED_CPU_ENV: dict[str, str] = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_CBWR": "AVX2",
}
# torch's own pins: bit-identical torch training across CPU kinds is not reached with them (oneDNN sizes its
# convolution blocks from the caches), and they cost 1.17-1.40x per ResNet step on an AVX-512 machine
# (benchmarks/bench_train_step.py), so the `long` profile's chunks run without them (docs/reliability.md)
TORCH_PINS = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")
# which already-imported module a variable can no longer affect
_READ_BY = {
    "NPY_DISABLE_CPU_FEATURES": "numpy",
    "OPENBLAS_CORETYPE": "numpy",
    "ATEN_CPU_CAPABILITY": "torch",
    "ONEDNN_MAX_CPU_ISA": "torch",
    "MKL_CBWR": "torch",
}


def profile_pins(profile: str) -> dict[str, str]:
    """The CPU-kernel pins a profile's cells are computed under: all of :data:`PINNED_CPU_ENV`, but for the
    ``long`` profile only numpy's, OpenBLAS's and MKL's (its chunks train torch at the CPU's own speed:
    ``benchmarks/gpu_profile.py``). A recomputation of a stored cell (``robeval adopt``) needs the same pins, or its
    numbers differ in the last bits (numpy's AVX-512 loops round otherwise). ValueError for a profile not in
    :data:`robeval.core.paths.PROFILES`."""
    from robeval.core.paths import check_profile

    check_profile(profile)
    return {k: v for k, v in PINNED_CPU_ENV.items() if profile != "long" or k not in TORCH_PINS}


def pin_cpu_kernels(environ=None, *, warn: bool = True, torch: bool = True) -> list[str]:
    """Pin the CPU kernels of numpy/OpenBLAS/torch to AVX2 code paths for bit-identical reruns across x86.

    Sets each variable of :data:`PINNED_CPU_ENV` in ``environ`` (default ``os.environ``) unless it is already
    set (a user's own value wins). The libraries read them when first imported, so call this before
    importing numpy or torch, or pass a copy of the environment of a subprocess (a kernel) to be started.
    Costs speed on machines with AVX-512 (numpy's transcendental functions, BLAS).

    ``torch=False`` leaves torch's ISA pins (:data:`TORCH_PINS`) unset: numpy's bits still hold across machines,
    torch runs at the machine's speed (the ``long`` profile's chunks, ``benchmarks/cpu_chunks.py``).

    Returns the names of the variables set too late for ``os.environ``: those whose library was already
    imported in this process (with ``warn`` a ``RuntimeWarning`` says so). Empty for another ``environ``.
    """
    target = os.environ if environ is None else environ
    if not hasattr(target, "setdefault"):
        raise TypeError(f"environ must be a mutable mapping such as os.environ or a dict, got {type(target).__name__}.")
    late = []
    for key, value in PINNED_CPU_ENV.items():
        if key in target or (not torch and key in TORCH_PINS):
            continue
        target[key] = value
        if environ is None and _READ_BY[key] in sys.modules:
            late.append(key)
    if late and warn:
        mods = sorted({_READ_BY[k] for k in late})
        warnings.warn(
            f"pin_cpu_kernels: {', '.join(mods)} was imported before the CPU kernels were pinned, so "
            f"{', '.join(late)} take no effect in this process and numbers may differ from other machines in the "
            "last bits. Start the 'Python (robeval)' kernel (make venv installs it with these variables) or run "
            "`robeval run`.",
            RuntimeWarning,
            stacklevel=2,
        )
    return late


def torch_device(prefer: str | None = None):
    """``torch.device('cuda')`` when a GPU is present, else CPU; ``prefer`` (a device name), when given, checked
    as :func:`usable_device` checks it (ValueError naming ``prefer`` for a name torch does not know, or a device
    this machine cannot use)."""
    import torch

    if prefer:
        return usable_device(prefer, "prefer")
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def usable_device(device, name: str = "device"):
    """``device`` as a ``torch.device`` this machine can compute on.

    Takes a device name (``'cpu'``, ``'cuda'``, ``'cuda:1'``), a CUDA index (``0``) or a ``torch.device``. A wrong
    type raises TypeError, a name torch does not know ValueError, and so does a device this machine cannot use
    (``'cuda'`` without a GPU, ``'mps'`` or ``'xla'`` without their backends, ``'meta'``, which holds no data):
    each message names ``name`` and says what to pass instead, in place of torch's own error at the first use.
    """
    import torch

    if isinstance(device, bool) or not isinstance(device, (str, int, torch.device)):
        raise TypeError(
            f"{name} must be a torch device name such as 'cpu', 'cuda' or 'cuda:0' (or a torch.device), "
            f"got {device!r:.60} of type {type(device).__name__}."
        )
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(
            f"{name}={device!r:.60} is not a torch device name; pass one such as 'cpu', 'cuda' or 'cuda:0'."
        ) from None
    if dev.type == "meta":
        raise ValueError(
            f"{name}={device!r} holds no data (torch's 'meta' device); pass 'cpu' or a GPU such as 'cuda'."
        )
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name}={device!r} asks for a GPU, but torch sees none on this machine; pass 'cpu'.")
    try:
        torch.zeros(1, device=dev).add_(1)
    except (RuntimeError, NotImplementedError, AssertionError) as exc:
        why = " ".join(str(exc).split()).split(". ")[0][:120]
        raise ValueError(f"{name}={device!r} cannot be used on this machine ({why}); pass 'cpu'.") from None
    return dev


_CPU_KIND: dict | None = None


def cpu_kind() -> dict:
    """What a cell ran on, as its result file records it (:func:`robeval.core.runs.store.compute_cell`): the CPU
    model (``/proc/cpuinfo``; ``platform.processor()`` elsewhere), its widest x86 vector ISA (``avx512``, ``avx2``
    or ``other``), the kernel pins in force (torch's ``ATEN_CPU_CAPABILITY`` and oneDNN's ``ONEDNN_MAX_CPU_ISA``,
    None when unset) and, when torch is already imported, the capability torch dispatches to. Read once per
    process; never imports torch."""
    global _CPU_KIND
    if _CPU_KIND is None:
        model, flags = platform.processor() or platform.machine(), set()
        try:
            with open("/proc/cpuinfo") as fh:
                for line in fh:
                    key, _, value = line.partition(":")
                    if key.strip() == "model name" and model in ("", platform.processor() or platform.machine()):
                        model = value.strip()
                    elif key.strip() == "flags":
                        flags = set(value.split())
                        break
        except OSError:
            pass
        isa = "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "other"
        _CPU_KIND = {"cpu": model, "isa": isa}
    out = dict(_CPU_KIND)
    out["pins"] = {k: os.environ.get(k) for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(getattr(torch, "backends", None), "cpu"):
        try:
            out["torch_capability"] = torch.backends.cpu.get_cpu_capability()
        except Exception:  # pragma: no cover - an old or partial torch
            out["torch_capability"] = None
    return out


def hardware_info() -> dict:
    """CPU, memory and accelerator of this machine, plus library versions and the pinned CPU variables."""
    import numpy as np

    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "cpu_pins": {k: os.environ.get(k) for k in PINNED_CPU_ENV},
    }
    try:
        with open("/proc/meminfo") as fh:
            kb = int(next(ln for ln in fh if ln.startswith("MemTotal")).split()[1])
        info["memory_gib"] = round(kb / 2**20, 1)
    except (OSError, StopIteration):
        info["memory_gib"] = None
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        info["cuda"] = torch.cuda.is_available()
        info["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:  # pragma: no cover
        info["torch"] = None
    return info


@contextlib.contextmanager
def temporary_env(values: Mapping[str, str]):
    """Within the block, ``os.environ`` holds ``values`` (name -> string); on exit, also after an error, every
    name gets its previous value back (or is removed if it had none). TypeError, before anything is set, unless
    ``values`` maps text to text."""
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of variable names to text, got {type(values).__name__}.")
    for k, v in values.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(
                f"values must map variable names (text) to text, got {k!r:.40}: {v!r:.40} ({type(v).__name__}); "
                f"environment variables hold text: pass str({v!r:.40})."
            )
    odd = [k for k in values if not k or "=" in k or "\0" in k or "\0" in values[k]]
    if odd:  # os.environ would refuse it with OSError [Errno 22] halfway through the update
        raise ValueError(f"values: {odd[0]!r:.40} is no environment variable name (empty, or with '=' or NUL).")
    saved = {k: os.environ.get(k) for k in values}
    try:
        os.environ.update(values)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
