"""The Laplace approximation for random terms with diagonal covariances and sparse design rows.

When every Ψ_f is diagonal (``(0 + x || g)``, or a random intercept) the rows of M = ZΛ have the
zeros of Z: in the mixed-effects Bradley–Terry model of :mod:`humaneval.comparative.mixed` an
observation's row holds +1 and −1 for its two systems and 0 for the other S − 2. Each observation
then adds w·m_c·m_d to the few entries (c, d) of its own groups' blocks of H = I + MᵀWM, and
needs the entries of H⁻¹ at those positions only, so assembling H and the leverages
h_i = M_i H⁻¹ M_iᵀ costs O(n · nnz²) instead of O(bins · q²) for the q × q outer products of the
general path (:mod:`humaneval.clmm.laplace`), which at 1,000 annotators × 50 systems held 2.5 · 10⁸
numbers per product. The blocks, their order and the Schur elimination are those of
:mod:`humaneval.clmm.design`, so the numbers are the general path's (tests/test_clmm_sparse.py).
"""

from __future__ import annotations

import numpy as np

from humaneval.clmm.design import Bucket, CompactPiece, RandomDesign
from humaneval.clmm.laplace import BucketSystem, LaplaceProblem
from humaneval.clmm.schur import SchurFactor

#: The sparse path is taken when every term is diagonal and its rows hold at most this share of
#: nonzeros (it pays from a handful of columns on; below, the general path's products are as cheap).
MAX_DENSITY = 0.5
MIN_COLUMNS = 4


def sparse_applies(design: RandomDesign) -> bool:
    """Every Ψ_f diagonal (or a random intercept) and the design rows mostly zeros."""
    if any(t.covariance not in ("diagonal", "intercept") for t in design.terms):
        return False
    width = sum(t.size for t in design.terms)
    nonzero = sum(int((t.zs != 0).sum(axis=1).max(initial=0)) for t in design.terms)
    return width >= MIN_COLUMNS and nonzero <= MAX_DENSITY * width


def laplace_problem(y, x, design: RandomDesign, link: str, n_thresholds: int) -> LaplaceProblem:
    """:class:`SparseLaplaceProblem` when :func:`sparse_applies`, else the general one."""
    cls = SparseLaplaceProblem if sparse_applies(design) else LaplaceProblem
    return cls(y, x, design, link, n_thresholds)


class SparseLaplaceProblem(LaplaceProblem):
    """:class:`~humaneval.clmm.laplace.LaplaceProblem` working on each observation's nonzero columns.

    Per bucket, ``_layout`` holds for every observation its nonzero columns over all terms
    (positions in its p columns, padding with weight 0), their entries in the stacked modes, and
    for every Hessian piece the flat positions of the (c, d) entries they touch in the piece's
    target array; the modes, gradients and leverages are then (n × nnz) arrays, not (n × p).
    """

    def __init__(self, y, x, design: RandomDesign, link: str, n_thresholds: int) -> None:
        super().__init__(y, x, design, link, n_thresholds)
        self._layout = [self._bucket_layout(b) for b in design.buckets]

    def _bucket_layout(self, bucket: Bucket) -> dict:
        pattern = self.pattern[bucket.obs]
        rows = np.arange(bucket.obs.size)[:, None]
        term_columns, valid, spans, keys, start = [], [], [], [], 0
        for term, sl in zip(self.design.terms, self.design.slices, strict=True):
            nonzero = term.zs != 0
            width = max(1, int(nonzero.sum(axis=1).max(initial=0)))
            order = np.argsort(~nonzero, axis=1, kind="stable")[:, :width]
            term_columns.append(order[pattern] + sl.start)
            valid.append(np.take_along_axis(nonzero, order, axis=1)[pattern])
            spans.append(slice(start, start + width))
            keys.append(pattern[:, None] * term.size + order[pattern])  # (pattern, column) bins
            start += width
        columns = np.concatenate(term_columns, axis=1)
        pieces = []
        for piece in bucket.pieces:
            f, j = piece.terms
            sf, sj = self.design.slices[f], self.design.slices[j]
            unit = (
                piece.bin_unit[piece.key] if isinstance(piece, CompactPiece) else piece.key // self.n_patterns
            )
            flat = piece.flat.reshape(piece.n_units, sf.stop - sf.start, sj.stop - sj.start)
            cf, cj = columns[:, spans[f]] - sf.start, columns[:, spans[j]] - sj.start
            pos = flat[unit[:, None, None], cf[:, :, None], cj[:, None, :]]
            pieces.append((piece, pos, spans[f], spans[j]))
        return {
            "columns": columns,
            "valid": np.concatenate(valid, axis=1).astype(float),
            "modes": bucket.flat_g[rows, columns],
            "pieces": pieces,
            "spans": spans,
            "keys": keys,
        }

    def _system(self, bucket: Bucket, k: int, rows, vals, eta_fix) -> _SparseSystem:
        return _SparseSystem(bucket, self._layout[k], vals, eta_fix)

    def _gradient_parts(self, system: BucketSystem, chol: SchurFactor, t, u):
        """As the general path, on each observation's nonzero columns: (H⁻¹ M_iᵀ) there is read from
        H⁻¹ at the observation's own entries; the other columns meet only zeros of M_i in h_i and of
        Z in the diagonal of ∂ℓ/∂L."""
        assert isinstance(system, _SparseSystem)  # made by this class's _system
        bucket, layout, z, at = system.bucket, system.layout, system.z, system.layout["modes"]
        nb, m = bucket.n_blocks, bucket.dim
        inverse = chol.inverse_blocks()
        cm = np.zeros_like(z)
        for piece, pos, sf, sj in layout["pieces"]:
            c = inverse[piece.target].ravel()[pos]
            cm[:, sf] += np.einsum("icd,id->ic", c, z[:, sj])
            if piece.mirror:
                cm[:, sj] += np.einsum("icd,ic->id", c, z[:, sf])
        h = np.einsum("ij,ij->i", z, cm)
        r = np.bincount(at.ravel(), ((t.dw * h)[:, None] * z).ravel(), minlength=nb * m)
        v_obs = chol.solve(r.reshape(nb, m)).reshape(-1)[at]
        mv = np.einsum("ij,ij->i", z, v_obs)
        kappa = t.g - 0.5 * (h * t.dw - t.w * mv)
        bracket = kappa[:, None] * u.reshape(-1)[at] - t.w[:, None] * cm - 0.5 * t.g[:, None] * v_obs
        return t, h, mv, kappa, bracket * layout["valid"]

    def _accumulate(self, bucket: Bucket, y, parts, g_theta, g_beta, g_fac) -> None:
        """As the general path, with the factor gradients binned per (pattern, nonzero column):
        Zᵀ(…) then has the right diagonal, all that a diagonal L_f needs."""
        t, h, mv, kappa, bracket = parts
        self._accumulate_fixed(bucket, y, t, h, mv, kappa, g_theta, g_beta)
        layout = self._layout[self.design.buckets.index(bucket)]
        for k, (span, key) in enumerate(zip(layout["spans"], layout["keys"], strict=True)):
            g_fac[k] += np.bincount(key.ravel(), bracket[:, span].ravel(), g_fac[k].size).reshape(
                g_fac[k].shape
            )


class _SparseSystem:
    """One bucket's random-effect system on each observation's nonzero columns ``z`` (n × nnz): the
    interface of the general path's bucket system, so that the mode search is the same
    (:meth:`humaneval.clmm.laplace.LaplaceProblem._mode`)."""

    def __init__(self, bucket: Bucket, layout: dict, vals, eta_fix) -> None:
        self.bucket, self.layout, self.eta_fix = bucket, layout, eta_fix
        self.z = vals[np.arange(vals.shape[0])[:, None], layout["columns"]] * layout["valid"]  # (n, nnz)
        nb = bucket.n_blocks
        self.shapes = {
            "kept": (nb, bucket.n_kept, bucket.n_kept),
            "cross": (nb, bucket.n_kept, bucket.n_elim * bucket.elim_size),
            "elim": (nb, bucket.n_elim, bucket.elim_size, bucket.elim_size),
        }
        self.products = [
            self.z[:, sf][:, :, None] * self.z[:, sj][:, None, :] for _, _, sf, sj in layout["pieces"]
        ]

    def score(self, g: np.ndarray) -> np.ndarray:
        nb, m = self.bucket.n_blocks, self.bucket.dim
        flat = np.bincount(self.layout["modes"].ravel(), (g[:, None] * self.z).ravel(), minlength=nb * m)
        return flat.reshape(nb, m)

    def eta_at(self, u: np.ndarray) -> np.ndarray:
        return self.eta_fix + np.einsum("ij,ij->i", self.z, u.reshape(-1)[self.layout["modes"]])

    def factorise(self, w: np.ndarray) -> SchurFactor:
        bucket, shapes = self.bucket, self.shapes
        parts = {name: np.zeros(int(np.prod(shape))) for name, shape in shapes.items()}
        for (piece, pos, *_), product in zip(self.layout["pieces"], self.products, strict=True):
            size = parts[piece.target].size
            parts[piece.target] += np.bincount(pos.ravel(), (w[:, None, None] * product).ravel(), size)
        a = parts["kept"].reshape(shapes["kept"]) + np.eye(bucket.n_kept)
        d = parts["elim"].reshape(shapes["elim"]) + np.eye(bucket.elim_size)
        return SchurFactor(a, parts["cross"].reshape(shapes["cross"]), d)
