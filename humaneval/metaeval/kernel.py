"""Vectorised weighted correlation coefficients over many groups and many resamples at once.

Every meta-evaluation measure (docs/metaeval.md, "Levels") correlates gold values
x and metric values y over the *units* of a *group*: systems within a document (τ_pair, Acc_pair),
documents within a system (τ_intra), all summaries (τ_sum, one group) or systems (τ_sys). A
bootstrap resample (Deutsch, Dror & Roth 2021) draws units with replacement, the same as giving unit u the
integer weight w_u = number of times it was drawn: a duplicated unit forms pairs with its copy that
are tied in both x and y and so drop out of τ_b's n_c and n_d, exactly as with weights.

Kendall's τ (b, a, c as in scipy) from ordered-pair quadratic forms with K[u,v] = sign(x_u−x_v)·sign(y_u−y_v):

    2(n_c − n_d) = wᵀKw,   2(N0 − t_x) = W² − Σ_c W_c²   (W_c = weight of tie class c of x)
    τ_b = wᵀKw / sqrt((W² − Σ W_xc²)(W² − Σ W_yc²)),   τ_a = wᵀKw / (W(W − 1)),
    τ_c = wᵀKw · m / (W²(m − 1)),  m = min(#x classes, #y classes) present

so one matrix product per chunk of resamples replaces a scipy call per resample. Pairwise
accuracy counts ordered pairs with sign products of +1: ½(wᵀKw + untied-in-both), over
gold-untied pairs W² − Σ W_xc². Spearman uses the average rank of a tie class, (weight below) +
(W_c + 1)/2, and Pearson weighted moments; both are Pearson's r of the duplicated sample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import overload

import numpy as np

from humaneval.errors import OptionError

Coefficient = str | Callable[[np.ndarray, np.ndarray], float]
#: Entries of the sign matrix built at once (float64 temporaries of 8 bytes each).
_BLOCK = 1 << 20

COEFFICIENTS = {
    "kendall": "kendall",
    "kendall_b": "kendall",
    "tau_b": "kendall",
    "kendall_a": "kendall_a",
    "tau_a": "kendall_a",
    "kendall_c": "kendall_c",
    "tau_c": "kendall_c",
    "pearson": "pearson",
    "spearman": "spearman",
}


@overload
def normalise_coefficient(coefficient: str) -> str: ...
@overload
def normalise_coefficient(
    coefficient: Callable[[np.ndarray, np.ndarray], float],
) -> Callable[[np.ndarray, np.ndarray], float]: ...
def normalise_coefficient(coefficient: Coefficient) -> Coefficient:
    """The canonical coefficient name, or the callable itself."""
    if callable(coefficient):
        return coefficient
    try:
        return COEFFICIENTS[str(coefficient).lower()]
    except KeyError:
        raise OptionError(
            f"unknown coefficient {coefficient!r}; use one of {sorted(set(COEFFICIENTS))} or a callable"
        ) from None


def _classes(values: np.ndarray, complete: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Tie classes of ``values`` (G, U) within each group, numbered in (group, value) order.

    Returns ``codes`` (G, U) (−1 where incomplete), ``class_group`` (group of each class) and the
    number of classes.
    """
    G, U = values.shape
    groups = np.broadcast_to(np.arange(G)[:, None], (G, U))[complete]
    vals = values[complete]
    order = np.lexsort((vals, groups))
    g_sorted, v_sorted = groups[order], vals[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (g_sorted[1:] != g_sorted[:-1]) | (v_sorted[1:] != v_sorted[:-1])
    sorted_codes = np.cumsum(new) - 1
    flat = np.empty(len(order), dtype=np.int64)
    flat[order] = sorted_codes
    codes = np.full((G, U), -1, dtype=np.int64)
    codes[complete] = flat
    return codes, g_sorted[new], int(new.sum())


@dataclass(frozen=True)
class PairKernel:
    """Gold ``x`` and metric ``y`` values, shape (G, U): G groups of U units, NaN = missing."""

    x: np.ndarray
    y: np.ndarray

    @cached_property
    def complete(self) -> np.ndarray:
        return ~(np.isnan(self.x) | np.isnan(self.y))

    @cached_property
    def _x_classes(self):
        return _classes(self.x, self.complete)

    @cached_property
    def _y_classes(self):
        return _classes(self.y, self.complete)

    @cached_property
    def _xy_classes(self):
        """Joint tie classes (tied in both x and y)."""
        xc, yc = self._x_classes[0], self._y_classes[0]
        joint = np.where(self.complete, xc * (self._y_classes[2] + 1.0) + yc, np.nan)
        return _classes(joint, self.complete)

    @cached_property
    def sign_product(self) -> np.ndarray:
        """K[g, u, v] = sign(x_u − x_v)·sign(y_u − y_v), 0 for pairs with a missing cell (float32).

        Built in blocks of rows so that the float64 temporaries stay small next to the result.
        """
        G, U = self.x.shape
        k = np.empty((G, U, U), dtype=np.float32)
        step = max(1, _BLOCK // max(U, 1))
        for g in range(G):
            x, y = self.x[g], self.y[g]
            for lo in range(0, U, step):
                part = slice(lo, lo + step)
                with np.errstate(invalid="ignore"):
                    block = np.sign(x[part, None] - x[None, :]) * np.sign(y[part, None] - y[None, :])
                k[g, part] = np.nan_to_num(block, nan=0.0)
        return k

    @staticmethod
    def _class_sums(classes, weff: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Class weights W_bc for effective weights (B, G, U); returns (Σ_c W_bc² per group,
        number of classes present per group, W_bc)."""
        codes, class_group, n = classes
        B, G = weff.shape[0], codes.shape[0]
        mask = codes >= 0
        idx = (codes[mask][None, :] + (np.arange(B) * n)[:, None]).ravel()
        wc = np.bincount(idx, weights=weff[:, mask].ravel(), minlength=B * n).reshape(B, n)
        by_group = (class_group[None, :] + (np.arange(B) * G)[:, None]).ravel()

        def per_group(values: np.ndarray) -> np.ndarray:
            return np.bincount(by_group, weights=values.ravel(), minlength=B * G).reshape(B, G)

        return per_group(wc**2), per_group((wc > 0).astype(float)), wc

    def _weights(self, w: np.ndarray) -> np.ndarray:
        """Effective weights (B, G, U): unit weights times completeness."""
        if w.ndim == 2:
            w = w[:, None, :]
        return w * self.complete[None]

    def evaluate(self, w: np.ndarray, coefficient: str, *, accuracy: bool = False) -> dict[str, np.ndarray]:
        """Coefficient per resample and group, shape (B, G), for unit weights ``w``.

        ``w`` is (B, U) (the same unit weights in every group) or (B, G, U). NaN where undefined
        (fewer than 2 units, or a zero denominator). With ``accuracy`` also returns the ordered
        counts ``correct`` and ``gold`` of pairwise accuracy (gold ties excluded, metric ties wrong).
        """
        weff = self._weights(w.astype(float))
        out: dict[str, np.ndarray] = {}
        total = weff.sum(axis=2)
        if coefficient.startswith("kendall") or accuracy:
            conc = self._quadratic(w, weff)
            sq_x, nx, _ = self._class_sums(self._x_classes, weff)
            sq_y, ny, _ = self._class_sums(self._y_classes, weff)
            untied_x, untied_y = total**2 - sq_x, total**2 - sq_y
            with np.errstate(invalid="ignore", divide="ignore"):
                if coefficient == "kendall":
                    value = conc / np.sqrt(untied_x * untied_y)
                elif coefficient == "kendall_a":
                    value = np.where(total >= 2, conc / (total * (total - 1)), np.nan)
                elif coefficient == "kendall_c":
                    m = np.minimum(nx, ny)
                    value = np.where(m >= 2, conc * m / (total**2 * (m - 1)), np.nan)
                else:
                    value = None
                if value is not None:
                    out["value"] = np.where(np.isfinite(value), value, np.nan)
            if accuracy:
                sq_xy, _, _ = self._class_sums(self._xy_classes, weff)
                both = total**2 - sq_x - sq_y + sq_xy
                out["correct"] = (conc + both) / 2
                out["gold"] = untied_x
        if coefficient in ("pearson", "spearman"):
            if coefficient == "pearson":
                ref = np.nanmin(np.where(self.complete, self.x, np.nan), axis=1, keepdims=True)
                refy = np.nanmin(np.where(self.complete, self.y, np.nan), axis=1, keepdims=True)
                xv = np.where(self.complete, self.x - np.nan_to_num(ref), 0.0)[None]
                yv = np.where(self.complete, self.y - np.nan_to_num(refy), 0.0)[None]
            else:
                xv, yv = self._ranks(self._x_classes, weff), self._ranks(self._y_classes, weff)
            out["value"] = _weighted_pearson(xv, yv, weff, total)
        return out

    def _quadratic(self, w: np.ndarray, weff: np.ndarray) -> np.ndarray:
        """wᵀ K w per resample and group (the pairs with a missing cell are already 0 in K)."""
        K = self.sign_product
        if w.ndim == 2:
            kw = np.tensordot(K, w.T.astype(np.float32), axes=([2], [0]))  # (G, U, B)
            return np.einsum("gub,bgu->bg", kw.astype(float), weff)
        return np.einsum("bgu,guv,bgv->bg", weff, K.astype(float), weff, optimize=True)

    def _ranks(self, classes, weff: np.ndarray) -> np.ndarray:
        """Average (mid) ranks of every unit in its group's weighted sample, shape (B, G, U)."""
        codes, class_group, n = classes
        _, _, wc = self._class_sums(classes, weff)
        below = np.cumsum(wc, axis=1) - wc
        starts = np.searchsorted(class_group, np.arange(codes.shape[0]))
        group_start = below[:, np.minimum(starts, n - 1)] if n else below
        rank_c = below - group_start[:, class_group] + (wc + 1) / 2
        ranks = np.zeros((weff.shape[0], *codes.shape))
        mask = codes >= 0
        ranks[:, mask] = rank_c[:, codes[mask]]
        return ranks


def _weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Pearson's r of the weighted samples (weights = multiplicities), last axis = units."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w * x).sum(axis=-1, keepdims=True) / total[..., None]
        my = (w * y).sum(axis=-1, keepdims=True) / total[..., None]
        dx, dy = np.where(w > 0, x - mx, 0.0), np.where(w > 0, y - my, 0.0)
        vx, vy = (w * dx * dx).sum(axis=-1), (w * dy * dy).sum(axis=-1)
        r = (w * dx * dy).sum(axis=-1) / np.sqrt(vx * vy)
    r = np.where((vx > 0) & (vy > 0) & (total >= 2), r, np.nan)
    return np.clip(r, -1.0, 1.0)


def correlate(x: np.ndarray, y: np.ndarray, coefficient: Coefficient = "kendall") -> float:
    """One coefficient over the complete pairs of two vectors; NaN when undefined."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    coefficient = normalise_coefficient(coefficient)
    if callable(coefficient):
        keep = ~(np.isnan(x) | np.isnan(y))
        return float(coefficient(x[keep], y[keep])) if keep.sum() >= 2 else float("nan")
    kernel = PairKernel(x[None], y[None])
    return float(kernel.evaluate(np.ones((1, len(x))), coefficient)["value"][0, 0])
