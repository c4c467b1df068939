"""Factorisation of the stacked random-effect Hessians by eliminating one factor (Schur complement).

Each block of H = I + ΛᵀZᵀWZΛ is, in the layout of :mod:`humaneval.clmm.design`,

    H = [[A, B], [Bᵀ, D]],   D = diag(D_1, …, D_n) (one q×q block per eliminated group),

so that, with G = B D⁻¹ and the Schur complement S = A − G Bᵀ,

    log det H = Σ_e log det D_e + log det S,
    H⁻¹ = [[S⁻¹, −S⁻¹G], [−GᵀS⁻¹, D⁻¹ + Gᵀ S⁻¹ G]].

Only the blocks of H⁻¹ at positions where H itself has entries are ever needed (the leverages
h_i = M_i H⁻¹ M_iᵀ involve an observation's own groups only), so the eliminated part of H⁻¹ is
formed group by group and never as a full matrix.
"""

from __future__ import annotations

import numpy as np


class SchurFactor:
    """H = [[A, B], [Bᵀ, D]] for a stack of blocks: A (nb, k, k), B (nb, k, n·q), D (nb, n, q, q)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> None:
        nb, n, q = d.shape[0], d.shape[1], d.shape[-1]
        self.shape = (nb, a.shape[1], n, q)
        self.b = b.reshape(nb, a.shape[1], n, q)
        if n:
            chol_d = np.linalg.cholesky(d)  # raises LinAlgError unless positive definite
            self.d_inv = np.linalg.inv(d)
            self.g = np.einsum("bkeq,beqr->bker", self.b, self.d_inv)
            s = a - np.einsum("bker,bler->bkl", self.g, self.b)
            logdet_d = 2.0 * np.sum(np.log(np.diagonal(chol_d, axis1=-2, axis2=-1)))
        else:
            self.d_inv = d
            self.g = self.b
            s = a
            logdet_d = 0.0
        chol_s = np.linalg.cholesky(s)
        self.s_inv = np.linalg.inv(s)
        self.logdet = float(logdet_d + 2.0 * np.sum(np.log(np.diagonal(chol_s, axis1=1, axis2=2))))

    def solve(self, r: np.ndarray) -> np.ndarray:
        """H⁻¹ r for r of shape (nb, k + n·q)."""
        nb, k, n, q = self.shape
        r_kept, r_elim = r[:, :k], r[:, k:].reshape(nb, n, q)
        y_elim = np.einsum("beqr,ber->beq", self.d_inv, r_elim)
        x_kept = np.einsum("bkl,bl->bk", self.s_inv, r_kept - np.einsum("bkeq,beq->bk", self.b, y_elim))
        x_elim = y_elim - np.einsum("bker,bk->ber", self.g, x_kept)
        return np.concatenate([x_kept, x_elim.reshape(nb, n * q)], axis=1)

    def inverse_blocks(self) -> dict[str, np.ndarray]:
        """The parts of H⁻¹ with H's sparsity: ``kept`` (= S⁻¹), ``cross`` (−S⁻¹G) and ``elim`` (the
        q×q diagonal blocks D_e⁻¹ + G_eᵀ S⁻¹ G_e)."""
        cross = -np.einsum("bkl,bler->bker", self.s_inv, self.g)
        elim = self.d_inv - np.einsum("bkeq,bker->beqr", self.g, cross)
        return {"kept": self.s_inv, "cross": cross, "elim": elim}
