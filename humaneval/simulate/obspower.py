"""Reader for the reference study's cached power p-values.

Each ``<model><B>_<D>_<A>.csv`` holds 100 iterations × 10 system pairs of unadjusted emmeans
p-values under the header ``,,p_value`` (read as ``better, worse, p``); where p < 0.05 ``better``
is the system the fit estimated as better. An iteration whose R fit failed has p = 1.0 in all 10
rows; it is counted as a failure, not as 10 non-significant results. The package never reads
the shared data itself: pass the folder explicitly.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.clmm.model import OrdinalModel
from humaneval.errors import RatingsError

_NAME = re.compile(r"(?P<model>.*?)(?P<blocks>\d+)_(?P<docs>\d+)_(?P<annotators>\d+)\.csv$")


def read_obspower_file(path: str | Path, pairs_per_iteration: int = 10) -> pd.DataFrame:
    """One cached file as ``iteration, better, worse, p, failed`` (``failed`` marks iterations
    whose every row is p = 1.0)."""
    path = Path(path)
    try:
        table = pd.read_csv(
            path, header=0, names=["better", "worse", "p"], dtype={"better": str, "worse": str}
        )
    except (OSError, ValueError) as exc:
        raise RatingsError(f"{path}: cannot read the cached power file ({exc})") from None
    if len(table) % pairs_per_iteration:
        raise RatingsError(
            f"{path}: {len(table)} rows is not a whole number of iterations of {pairs_per_iteration} pairs"
        )
    table["iteration"] = np.arange(len(table)) // pairs_per_iteration
    table["failed"] = table.groupby("iteration")["p"].transform(lambda p: bool((p == 1.0).all()))
    return table[["iteration", "better", "worse", "p", "failed"]]


def obspower_power(table: pd.DataFrame, model: OrdinalModel, alpha: float = 0.05) -> dict[str, float]:
    """Power of one cached file under ``model``'s β.

    A row succeeds when p < α and ``better`` truly has the larger β; pairs with equal β are left out.
    """
    beta = dict(zip(model.system_names, model.coefficients, strict=True))
    unknown = sorted(set(table["better"]) - beta.keys() | set(table["worse"]) - beta.keys())
    if unknown:
        raise RatingsError(
            f"cached power file names systems {unknown} that the model does not know; "
            "pass the model whose systems the study compared"
        )
    diff = table["better"].map(beta) - table["worse"].map(beta)
    scored = table[diff != 0]
    diff = diff[diff != 0]
    significant = scored["p"] < alpha
    success = significant & (diff > 0)
    ok = ~scored["failed"]
    iterations = table["iteration"].nunique()
    failed = int(table.groupby("iteration")["failed"].first().sum())
    return {
        "iterations": iterations,
        "power": float(success.mean()),
        "failed_iterations": failed,
        "power_successful": float(success[ok].mean()) if ok.any() else float("nan"),
        "wrong_direction": int((significant & (diff < 0)).sum()),
        "mc_se": float(np.sqrt(success.mean() * (1 - success.mean()) / iterations)),
    }


def read_obspower(folder: str | Path, model: OrdinalModel, alpha: float = 0.05) -> pd.DataFrame:
    """The docs/simulation.md table from every cached file in ``folder``, one row per design."""
    folder = Path(folder)
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise RatingsError(f"{folder}: no cached power files (*_<B>_<D>_<A>.csv) found")
    rows = []
    for path in files:
        match = _NAME.match(path.name)
        if match is None:
            raise RatingsError(f"{path}: the name does not end in <blocks>_<docs>_<annotators>.csv")
        blocks, docs, annotators = (int(match[k]) for k in ("blocks", "docs", "annotators"))
        n_sys = len(model.system_names)
        stats = obspower_power(read_obspower_file(path, n_sys * (n_sys - 1) // 2), model, alpha)
        rows.append(
            {
                "annotators": annotators,
                "blocks": blocks,
                "docs": docs,
                "judgements_per_system": blocks * docs * annotators,
                "total_annotators": blocks * annotators,
                **stats,
                "file": path.name,
            }
        )
    order = ["annotators", "judgements_per_system", "blocks"]
    return pd.DataFrame(rows).sort_values(order).reset_index(drop=True)
