"""Where a neural scorer's model comes from, and which device it runs on.

A model is named as every transformers tool names it: a Hugging Face hub id
(``microsoft/deberta-large-mnli``, optionally at a ``revision``), a local directory holding
``config.json``, the weights and the tokenizer files, or ``pkg:<package>/<subdir>`` (model files
shipped inside an installed Python package). A hub id is resolved to its snapshot in the usual
Hugging Face cache with :func:`huggingface_hub.snapshot_download`, which honours ``HF_HOME``,
``HF_HUB_CACHE`` and ``HF_HUB_OFFLINE``: the first use downloads the checkpoint (weights in one
format only), later uses and offline runs read the cache. Everything is then loaded from that local
directory, so a scorer's ``meta["model_path"]`` always names the exact files that ran.

Weights load from safetensors files (``use_safetensors=True``), which hold tensors only. Pickled
weights (``pytorch_model.bin``, ``*.pt``, ``*.pth``, ``*.ckpt``) can run code when they are loaded, so a
model directory that has only those is refused unless the caller passes ``allow_pickle=True``
(``--allow-pickle``) for a file they trust; convert them once with
``AutoModel.from_pretrained(path).save_pretrained(path, safe_serialization=True)``.
"""

from __future__ import annotations

import importlib.resources
import os
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

from humaneval.errors import BackendUnavailableError, ModelSpecError, OptionError

DEVICES = ("auto", "cpu", "cuda", "mps")
#: Repository files a scorer never needs (other frameworks' weights, exports).
IGNORED_FILES = (
    "*.h5",
    "*.msgpack",
    "*.onnx",
    "*.ot",
    "*.tflite",
    "tf_model*",
    "flax_model*",
    "rust_model*",
    "onnx/*",
    "coreml/*",
)
#: Weight files that are Python pickles: loading one can run code.
PICKLE_WEIGHTS = ("pytorch_model*.bin", "*.pt", "*.pth", "*.ckpt")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


def resolve_model(
    model: str | os.PathLike,
    *,
    what: str = "model",
    revision: str | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> Path:
    """The local directory of ``model``: a path, ``pkg:PACKAGE/SUBDIR`` or a hub id (downloaded once).

    Parameters
    ----------
    model:
        A local model directory, ``pkg:<package>/<subdir>``, or a Hugging Face hub id.
    what:
        What the model is for, used in error messages (e.g. ``"NLI model"``).
    revision:
        Branch, tag or commit of a hub model (default: ``main``); not allowed with a local path.
    cache_dir:
        Hugging Face cache to use instead of the default (``$HF_HUB_CACHE`` or ``$HF_HOME/hub``).

    Returns
    -------
    pathlib.Path
        A directory holding ``config.json``.

    Raises
    ------
    BackendUnavailableError
        The directory is not a model, the package is not installed, or a hub model is neither in the
        cache nor downloadable (offline, no network, unknown id); the message says how to fetch it.

    Examples
    --------
    >>> resolve_model("no such dir/")                                   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    humaneval.errors.BackendUnavailableError: model no such dir/: ... is not a model directory ...
    """
    text = os.fspath(model)
    if text.startswith("pkg:"):
        package, _, sub = text[4:].partition("/")
        try:
            path = Path(str(importlib.resources.files(package).joinpath(sub)))
        except ModuleNotFoundError:
            raise BackendUnavailableError(f"{what} {text}: package {package!r} is not installed") from None
        return _checked_dir(path, text, what)
    path = Path(text).expanduser()
    if path.exists() or not _HUB_ID.match(text) or text.endswith("/"):
        if revision is not None:
            raise ModelSpecError(f"{what} {text}: a revision applies to hub models, not to a local directory")
        return _checked_dir(path, text, what)
    return _snapshot(text, what, revision, cache_dir)


def _checked_dir(path: Path, text: str, what: str) -> Path:
    if not (path / "config.json").is_file():
        raise BackendUnavailableError(
            f"{what} {text}: {path} is not a model directory (no config.json); give a Hugging Face hub id "
            "or the directory holding config.json, the weights and the tokenizer files"
        )
    return path


def _snapshot(repo_id: str, what: str, revision: str | None, cache_dir: str | os.PathLike | None) -> Path:
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.constants import HF_HUB_CACHE, HF_HUB_OFFLINE
    except ImportError:
        raise BackendUnavailableError(
            f"{what} {repo_id}: loading hub models needs huggingface_hub: pip install 'humaneval[nli]'"
        ) from None
    try:
        folder = snapshot_download(
            repo_id,
            revision=revision,
            cache_dir=None if cache_dir is None else os.fspath(cache_dir),
            ignore_patterns=list(IGNORED_FILES),
        )
    except Exception as exc:  # network, offline-and-not-cached, unknown id, gated repo: all one answer
        cache = os.fspath(cache_dir) if cache_dir else HF_HUB_CACHE
        at = f" at revision {revision}" if revision else ""
        why = "HF_HUB_OFFLINE is set" if HF_HUB_OFFLINE else f"{type(exc).__name__}: {_first_line(exc)}"
        raise BackendUnavailableError(
            f"{what} {repo_id}{at} is not in the Hugging Face cache ({cache}) and could not be fetched "
            f"({why}); fetch it once with network access (`hf download {repo_id}`) or pass a local directory"
        ) from None
    return _checked_dir(Path(folder), repo_id, what)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else "no detail"


def resolve_device(device: str = "auto") -> str:
    """The torch device to run on: ``auto`` takes CUDA, then Apple's MPS, then the CPU.

    Raises :class:`BackendUnavailableError` when an explicitly requested accelerator is absent,
    rather than silently running somewhere else.
    """
    import torch

    name = str(device).lower()
    base = name.split(":", 1)[0]
    if base not in DEVICES:
        raise OptionError(f"device {device!r} is not one of {', '.join(DEVICES)} (e.g. cuda:1)")
    has_mps = bool(getattr(torch.backends, "mps", None)) and torch.backends.mps.is_available()
    if base == "auto":
        return "cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu"
    if base == "cuda" and not torch.cuda.is_available():
        raise BackendUnavailableError(f"device {device}: torch sees no CUDA device here; use --device cpu")
    if base == "mps" and not has_mps:
        raise BackendUnavailableError(
            f"device {device}: torch's MPS backend is not available; use --device cpu"
        )
    return name


def weight_options(path: str | os.PathLike, what: str = "model", allow_pickle: bool = False) -> dict:
    """``from_pretrained`` options for the weights in ``path``: safetensors, pickles only when allowed.

    Raises
    ------
    ModelSpecError
        The directory holds only pickled weights and ``allow_pickle`` is false, or no weights at all.
    """
    folder = Path(path)
    if any(folder.glob("*.safetensors")):
        return {"local_files_only": True, "use_safetensors": True}
    pickles = sorted({p.name for pattern in PICKLE_WEIGHTS for p in folder.glob(pattern)})
    if not pickles:
        raise ModelSpecError(f"{what} {folder}: no weights (model.safetensors) in the folder")
    if not allow_pickle:
        raise ModelSpecError(
            f"{what} {folder}: the weights are a pickle ({pickles[0]}), which can run code when loaded; "
            "convert them to safetensors (save_pretrained(..., safe_serialization=True)), or pass "
            "--allow-pickle (allow_pickle=True) if you trust the file"
        )
    return {"local_files_only": True, "use_safetensors": False}


def load_pretrained(auto_class: Any, path: str | os.PathLike, what: str, allow_pickle: bool = False) -> Any:
    """``auto_class.from_pretrained(path)`` from local files, safetensors first (:func:`weight_options`);
    weights that do not load (a pickle that is not plain tensors included) are one :class:`ModelSpecError`."""
    options = weight_options(path, what, allow_pickle)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Detected pickle protocol")
            return auto_class.from_pretrained(path, **options)
    except pickle.UnpicklingError:
        raise ModelSpecError(
            f"{what} {path}: the weights did not load: the pickle holds more than tensors, which torch "
            "refuses to unpickle (weights_only); use safetensors weights"
        ) from None
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelSpecError(f"{what} {path}: the weights did not load ({_first_line(exc)})") from None


def load_transformers() -> Any:
    """Import transformers (with torch), or say which extra installs them."""
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise BackendUnavailableError(
            "neural scorers need torch and transformers: pip install 'humaneval[nli]'"
        ) from None
    transformers.utils.logging.disable_progress_bar()
    return transformers
