"""The parameter vector of a native CLMM fit and its two scales.

*Natural* scale, as ``ordinal::clmm`` optimises it: threshold parameters τ (θ = J τ), fixed
effects β, then per grouping factor the entries of its lower-triangular factor L_f
(Ψ_f = L_f L_fᵀ): the q diagonal entries (bounded below by 0) and then, block by block of Ψ_f, the
strictly lower entries in column-major order (R's ``ST[lower.tri(ST)]`` for one block).

*Optimiser* scale: identical except that flexible thresholds are (θ_1, log(θ_2 − θ_1), …), so that
every point the optimiser tries has ordered thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from humaneval.clmm.design import FittedTerm


@dataclass(frozen=True)
class ParamLayout:
    """Where θ, β and each factor's L entries sit in the parameter vector."""

    n_thresholds: int
    n_beta: int
    terms: tuple[FittedTerm, ...]
    flexible: bool = True

    @property
    def size(self) -> int:
        return self.n_thresholds + self.n_beta + sum(t.n_params for t in self.terms)

    def _term_slices(self) -> list[slice]:
        start = self.n_thresholds + self.n_beta
        out = []
        for t in self.terms:
            out.append(slice(start, start + t.n_params))
            start += t.n_params
        return out

    @staticmethod
    def _tril(term: FittedTerm) -> tuple[np.ndarray, np.ndarray]:
        """Row and column indices of L's free entries: the diagonal, then each block's strict lower
        triangle column by column."""
        return _tril_indices(term.size, term.blocks)

    def diagonal_mask(self) -> np.ndarray:
        """True for the parameters that are diagonal entries of some L_f (bounded below by 0)."""
        mask = np.zeros(self.size, dtype=bool)
        for sl, t in zip(self._term_slices(), self.terms, strict=True):
            mask[sl.start : sl.start + t.size] = True
        return mask

    def split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
        """(θ, β, (L_1, …)) from a natural-scale vector."""
        theta = x[: self.n_thresholds]
        beta = x[self.n_thresholds : self.n_thresholds + self.n_beta]
        factors = []
        for sl, t in zip(self._term_slices(), self.terms, strict=True):
            mat = np.zeros((t.size, t.size))
            mat[self._tril(t)] = x[sl]
            factors.append(mat)
        return theta, beta, tuple(factors)

    def flatten(self, theta: np.ndarray, beta: np.ndarray, factors: tuple[np.ndarray, ...]) -> np.ndarray:
        """Natural-scale vector from (θ, β, (L_1, …)), or a gradient from its parts (∂θ, ∂β, ∂L_f)."""
        parts = [theta, beta]
        parts += [f[self._tril(t)] for t, f in zip(self.terms, factors, strict=True)]
        return np.concatenate(parts)

    def to_optimizer(self, x: np.ndarray) -> np.ndarray:
        z = x.copy()
        if not self.flexible:
            return z
        z[1 : self.n_thresholds] = np.log(np.diff(x[: self.n_thresholds]))
        return z

    def from_optimizer(self, z: np.ndarray) -> np.ndarray:
        x = z.copy()
        if not self.flexible:
            return x
        x[: self.n_thresholds] = np.cumsum(np.concatenate((z[:1], np.exp(z[1 : self.n_thresholds]))))
        return x

    def gradient_to_optimizer(self, z: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """Chain rule: ∂/∂z_k = Σ_{j ≥ k} ∂/∂θ_j · ∂θ_j/∂z_k, with ∂θ_j/∂z_k = exp(z_k) for k ≥ 1."""
        out = grad.copy()
        if not self.flexible:
            return out
        k = self.n_thresholds
        tail = np.cumsum(grad[:k][::-1])[::-1]
        out[:k] = tail * np.concatenate(((1.0,), np.exp(z[1:k])))
        return out


@lru_cache(maxsize=256)
def _tril_indices(size: int, blocks: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Cached for :meth:`ParamLayout._tril` (called on every likelihood evaluation); read-only."""
    diag = np.arange(size)
    rows, cols = [diag], [diag]
    start = 0
    for block in blocks:
        c, r = np.triu_indices(block, 1)  # column-major order of the strict lower triangle
        rows.append(start + r)
        cols.append(start + c)
        start += block
    rows_out, cols_out = np.concatenate(rows), np.concatenate(cols)
    rows_out.flags.writeable = False
    cols_out.flags.writeable = False
    return rows_out, cols_out
