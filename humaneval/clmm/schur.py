"""Factorisation of the stacked random-effect Hessians by eliminating one factor (Schur complement).

Each block of H = I + ΛᵀZᵀWZΛ is, in the layout of :mod:`humaneval.clmm.design`,

    H = [[A, B], [Bᵀ, D]],   D = diag(D_1, …, D_n) (one q×q block per eliminated group),

so that, with G = B D⁻¹ and the Schur complement S = A − G Bᵀ,

    log det H = Σ_e log det D_e + log det S,
    H⁻¹ = [[S⁻¹, −S⁻¹G], [−GᵀS⁻¹, D⁻¹ + Gᵀ S⁻¹ G]].

Only the blocks of H⁻¹ at positions where H itself has entries are ever needed (the leverages
h_i = M_i H⁻¹ M_iᵀ involve an observation's own groups only), so the eliminated part of H⁻¹ is
formed group by group and never as a full matrix.

With crossed factors (annotators kept, documents eliminated, each document rated by a few
annotators) B is mostly zero: G = B D⁻¹ has the same zero rows, so G Bᵀ and S⁻¹ G are formed over
G's nonzeros (scipy.sparse), k² · n · q work becoming nnz(G) · k; the numbers are those of the dense
products to rounding.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

#: Below this share of nonzero entries in B (crossed annotators and documents, each document rated by
#: a few of the annotators), the products G Bᵀ and S⁻¹ G are taken over B's nonzeros only.
SPARSE_SHARE = 0.25
#: ... and only for products this large (k² · n · q multiply-adds), where the bookkeeping pays.
SPARSE_WORK = 1e8


class SchurFactor:
    """H = [[A, B], [Bᵀ, D]] for a stack of blocks: A (nb, k, k), B (nb, k, n·q), D (nb, n, q, q).

    Newton steps need only :meth:`solve` and the log-determinant; S⁻¹ is formed (once) only when
    :meth:`inverse_blocks` asks for it. Every product is a batched ``matmul`` over the blocks.
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> None:
        nb, n, q = d.shape[0], d.shape[1], d.shape[-1]
        k = a.shape[1]
        self.shape = (nb, k, n, q)
        self.b = b.reshape(nb, k, n * q)
        if n and q == 1:  # scalar groups (random intercepts): LAPACK's 1×1 Cholesky and inverse
            if not np.all(d > 0):
                raise np.linalg.LinAlgError("Matrix is not positive definite")
            chol_d, self.d_inv = np.sqrt(d), 1.0 / d
        elif n:
            chol_d = np.linalg.cholesky(d)  # raises LinAlgError unless positive definite
            self.d_inv = np.linalg.inv(d)
        if n:
            b_groups = self.b.reshape(nb, k, n, q).transpose(0, 2, 1, 3)  # (nb, n, k, q)
            g_groups = b_groups @ self.d_inv  # G_e = B_e D_e⁻¹
            self.g = g_groups.transpose(0, 2, 1, 3).reshape(nb, k, n * q)
            sparse = self._sparse(self.b, self.g, q)
            self._sparse_g = None if sparse is None else sparse[1]
            if sparse is None:
                s = a - self.g @ self.b.transpose(0, 2, 1)
            else:  # G and B share their zero rows per group: G Bᵀ over the nonzeros only
                s = a - np.stack([(g @ b.T).toarray() for b, g in zip(*sparse, strict=True)])
            logdet_d = 2.0 * np.sum(np.log(np.diagonal(chol_d, axis1=-2, axis2=-1)))
        else:
            self.d_inv = d
            self.g = self.b
            self._sparse_g = None
            s = a
            logdet_d = 0.0
        chol_s = np.linalg.cholesky(s)
        self.s = s
        self._s_inv: np.ndarray | None = None
        self.logdet = float(logdet_d + 2.0 * np.sum(np.log(np.diagonal(chol_s, axis1=1, axis2=2))))

    @staticmethod
    def _sparse(b: np.ndarray, g: np.ndarray, q: int) -> tuple[list[csr_matrix], list[csr_matrix]] | None:
        """B and G per block as sparse matrices on B's nonzero (row, group) cells, when they are large
        and mostly zero; else None (dense products)."""
        nb, k, m = b.shape
        if k * k * m < SPARSE_WORK:
            return None
        used = np.any(b.reshape(nb, k, m // q, q) != 0.0, axis=3)  # (nb, k, groups)
        if used.sum() * q > SPARSE_SHARE * b.size:
            return None
        out: tuple[list[csr_matrix], list[csr_matrix]] = ([], [])
        for block in range(nb):
            rows, groups = np.nonzero(used[block])
            columns = (groups[:, None] * q + np.arange(q)).ravel()
            where = (np.repeat(rows, q), columns)
            for found, source in zip(out, (b, g), strict=True):
                found.append(csr_matrix((source[block][where], where), shape=(k, m)))
        return out

    def solve(self, r: np.ndarray) -> np.ndarray:
        """H⁻¹ r for r of shape (nb, k + n·q)."""
        nb, k, n, q = self.shape
        r_kept, r_elim = r[:, :k], r[:, k:].reshape(nb, n, q, 1)
        y_elim = (self.d_inv @ r_elim).reshape(nb, n * q, 1) if n else r_elim.reshape(nb, 0, 1)
        rhs = r_kept[:, :, None] - self.b @ y_elim
        x_kept = self._s_inv @ rhs if self._s_inv is not None else np.linalg.solve(self.s, rhs)
        x_elim = y_elim - self.g.transpose(0, 2, 1) @ x_kept
        return np.concatenate([x_kept[:, :, 0], x_elim[:, :, 0]], axis=1)

    def inverse_blocks(self) -> dict[str, np.ndarray]:
        """The parts of H⁻¹ with H's sparsity: ``kept`` (= S⁻¹), ``cross`` (−S⁻¹G) and ``elim`` (the
        q×q diagonal blocks D_e⁻¹ + G_eᵀ S⁻¹ G_e)."""
        nb, k, n, q = self.shape
        if self._s_inv is None:
            self._s_inv = np.linalg.inv(self.s)
        if self._sparse_g is None:
            cross = -(self._s_inv @ self.g)  # (nb, k, n·q)
        else:  # S⁻¹ is symmetric: S⁻¹ G = (Gᵀ S⁻¹)ᵀ over G's nonzeros
            pairs = zip(self._sparse_g, self._s_inv, strict=True)
            cross = -np.stack([(g.T @ s_inv).T for g, s_inv in pairs])
        g_groups = self.g.reshape(nb, k, n, q).transpose(0, 2, 3, 1)  # G_eᵀ: (nb, n, q, k)
        cross_groups = cross.reshape(nb, k, n, q).transpose(0, 2, 1, 3)  # (nb, n, k, q)
        elim = self.d_inv - g_groups @ cross_groups
        return {"kept": self._s_inv, "cross": cross.reshape(nb, k, n, q), "elim": elim}
