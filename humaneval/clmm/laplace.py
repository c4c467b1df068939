"""Laplace approximation of the CLMM marginal log-likelihood and its analytic gradient.

docs/native-engine.md (what ``ordinal::clmm`` computes with ``nAGQ=1``). With spherical random effects u,
M = ZΛ and the per-observation terms of :mod:`humaneval.clmm.links`,

    F(u) = Σ_i log P(y_i | η_i) − ½‖u‖²,   η = Xβ + Mu,   H = I + Mᵀ diag(W) M,
    ℓ_LA = F(u*) − ½ log det H(u*),          u* = argmax F   (Newton steps, warm-started).

Gradient (derived for this package). With C = H⁻¹, h_i = M_i C M_iᵀ, r = Mᵀ(W′∘h) and v = C r
(one adjoint solve replaces du*/dφ for every parameter), the envelope theorem for F and
d log det H = tr(C dH) give per observation κ_i = g_i − ½(h_i W′_i − W_i M_i v) and

    ∂ℓ/∂β     = Xᵀκ
    ∂ℓ/∂θ_up  = Σ_i ∂ℓ_i/∂θ_up − ½(h_i ∂W_i/∂θ_up + M_i v ∂g_i/∂θ_up)    (same for θ_low)
    ∂ℓ/∂L_f   = Σ_i z_f(i) [κ_i u_{f,i} − W_i (C M_iᵀ)_{f,i} − ½ g_i v_{f,i}]ᵀ

where u_{f,i}, v_{f,i} and (C M_iᵀ)_{f,i} are the q_f entries of factor f's group of observation i.
Only the blocks of C where H has entries are needed; :mod:`humaneval.clmm.schur` forms exactly those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from humaneval.clmm.design import Bucket, CompactPiece, RandomDesign
from humaneval.clmm.links import obs_terms, third_order
from humaneval.clmm.schur import SchurFactor

NEWTON_TOL = 1e-9
NEWTON_MAX_ITER = 50
CHORD_RATE = 0.1


@dataclass(frozen=True)
class LaplaceValue:
    """ℓ_LA and (when asked for) its gradient with respect to θ, β and each L_f (full q×q)."""

    loglik: float
    grad_theta: np.ndarray | None = None
    grad_beta: np.ndarray | None = None
    grad_factors: tuple[np.ndarray, ...] | None = None


class BucketSystem(Protocol):
    """What the mode search asks of one bucket's random-effect system (:class:`_BucketSystem`, or the
    sparse path's :class:`~humaneval.clmm.sparse._SparseSystem`)."""

    bucket: Bucket

    def score(self, g: np.ndarray) -> np.ndarray: ...
    def eta_at(self, u: np.ndarray) -> np.ndarray: ...
    def factorise(self, w: np.ndarray) -> SchurFactor: ...


class LaplaceProblem:
    """The data, the random-effect layout and the warm-start modes of one model fit.

    ``y`` are category codes 0..K−1 (``n_thresholds`` = K − 1), ``x`` the fixed design without
    intercept (n × p). Thresholds are θ itself here; structured thresholds map onto it outside.
    """

    def __init__(
        self, y: np.ndarray, x: np.ndarray, design: RandomDesign, link: str, n_thresholds: int
    ) -> None:
        self.y = np.asarray(y, dtype=np.int64)
        self.x = np.asarray(x, dtype=float)
        self.pattern = design.pattern
        self.n_patterns = design.n_patterns
        self.n_thresholds = int(n_thresholds)
        self.design = design
        self.link = link
        self._modes = [np.zeros((b.n_blocks, b.dim)) for b in design.buckets]
        self._local = [_BucketRows(self, b) for b in design.buckets]
        self._factors: list[SchurFactor | None] = [None] * len(design.buckets)

    @property
    def modes(self) -> list[np.ndarray]:
        """The conditional modes u* per bucket (n_blocks × dim) of the last evaluation."""
        return self._modes

    def reset(self) -> None:
        """Forget the warm-start modes (start the next evaluation from u = 0)."""
        self._modes = [np.zeros_like(u) for u in self._modes]
        self._factors = [None] * len(self._factors)

    def evaluate(
        self, theta: np.ndarray, beta: np.ndarray, factors: tuple[np.ndarray, ...], gradient: bool = True
    ) -> LaplaceValue:
        """ℓ_LA at (θ, β, L_1..L_F); −∞ when some P(y_i | u) vanishes or thresholds are unordered."""
        if np.any(np.diff(theta) <= 0) or not np.all(np.isfinite(theta)):
            return LaplaceValue(-np.inf)
        theta_ext = np.concatenate(([-np.inf], theta, [np.inf]))
        eta_fix = self.x @ beta if self.x.shape[1] else np.zeros(self.y.size)
        rows = [t.zs @ f for t, f in zip(self.design.terms, factors, strict=True)]  # P × q_f each
        total = 0.0
        g_theta = np.zeros(self.n_thresholds)
        g_beta = np.zeros(self.x.shape[1])
        g_fac = [np.zeros((self.n_patterns, t.size)) for t in self.design.terms]
        for k, (bucket, local) in enumerate(zip(self.design.buckets, self._local, strict=True)):
            vals = np.concatenate([r[local.pattern] for r in rows], axis=1)
            y = local.y
            eta_bucket = eta_fix if local.every_row else eta_fix[bucket.obs]
            found = self._bucket(bucket, rows, vals, eta_bucket, theta_ext, y, k, gradient)
            if found is None:
                return LaplaceValue(-np.inf)
            value, parts = found
            total += value
            if gradient:
                self._accumulate(bucket, y, parts, g_theta, g_beta, g_fac)
        if not gradient:
            return LaplaceValue(total)
        grads = tuple(t.zs.T @ r for t, r in zip(self.design.terms, g_fac, strict=True))
        return LaplaceValue(total, g_theta, g_beta, grads)

    def state(self) -> tuple[list[np.ndarray], list[SchurFactor | None]]:
        """The warm start of the next evaluation (modes and factorisations of H), to :meth:`restore`."""
        return [u.copy() for u in self._modes], list(self._factors)

    def restore(self, state: tuple[list[np.ndarray], list[SchurFactor | None]]) -> None:
        """Start the next evaluation from a saved :meth:`state`."""
        self._modes[:] = [u.copy() for u in state[0]]
        self._factors[:] = state[1]

    def _system(self, bucket: Bucket, k: int, rows, vals, eta_fix) -> BucketSystem:
        """The random-effect system of bucket ``k``: η at given modes, Mᵀg and H's factorisation."""
        return _BucketSystem(bucket, rows, vals, eta_fix, self.n_patterns)

    def _terms(self, theta_ext, y, eta, order: int = 2):
        """The per-observation terms (:func:`~humaneval.clmm.links.obs_terms`)."""
        return obs_terms(theta_ext, y, eta, self.link, order=order)

    def _bucket(self, bucket: Bucket, rows, vals, eta_fix, theta_ext, y, k: int, gradient: bool):
        """ℓ_LA's share of one bucket and (``gradient``) the per-observation parts of its gradient;
        None where the likelihood is zero or H is singular."""
        system = self._system(bucket, k, rows, vals, eta_fix)
        found = self._mode(system, theta_ext, y, k)
        if found is None:
            return None
        u, eta, t, value = found
        try:
            if gradient:
                t = third_order(theta_ext, y, eta, self.link, t)
            chol = system.factorise(t.w)
        except np.linalg.LinAlgError:
            return None
        self._factors[k] = chol
        total = value - 0.5 * chol.logdet
        if not gradient:
            return total, None
        return total, self._gradient_parts(system, chol, t, u)

    def _mode(self, system: BucketSystem, theta_ext, y, k: int):
        """The conditional mode u* of bucket ``k`` from its warm start: ``(u, η, terms, F(u))``.

        Chord steps reuse the last evaluation's factorisation of H (H moves little between nearby
        parameters, and the warm-start error is first order in their distance) while they raise F and
        shrink the gradient at least CHORD_RATE-fold; otherwise Newton steps with H at u, halved until F
        does not fall. None when F is not finite even at u = 0, or H is singular.
        """
        u = self._modes[k]
        eta, t, value = self._at(system, theta_ext, y, u)
        if not np.isfinite(value):
            u = np.zeros_like(u)
            eta, t, value = self._at(system, theta_ext, y, u)
            if not np.isfinite(value):
                return None
        chord = self._factors[k]
        last = np.inf
        try:
            for _ in range(NEWTON_MAX_ITER):
                grad = system.score(t.g) - u
                size = np.max(np.abs(grad))
                if size < NEWTON_TOL:
                    break
                if chord is not None and size <= CHORD_RATE * last:
                    last = size
                    u_try = u + chord.solve(grad)
                    eta_try, t_try, value_try = self._at(system, theta_ext, y, u_try)
                    if value_try >= value:
                        u, eta, t, value = u_try, eta_try, t_try, value_try
                        continue
                chord = None
                step = system.factorise(t.w).solve(grad)
                factor = 1.0
                while True:
                    u_try = u + factor * step
                    eta_try, t_try, value_try = self._at(system, theta_ext, y, u_try)
                    if value_try >= value - 1e-12 * abs(value) or factor < 1e-8:
                        break
                    factor /= 2
                u, eta, t, value = u_try, eta_try, t_try, value_try
        except np.linalg.LinAlgError:
            return None
        self._modes[k] = u
        return u, eta, t, value

    def _at(self, system: BucketSystem, theta_ext, y, u):
        """η, the per-observation terms (second order; the mode's third-order terms are added to them
        by :func:`~humaneval.clmm.links.third_order`) and F(u) = Σ log P − ½‖u‖² at the modes ``u``."""
        eta = system.eta_at(u)
        t = self._terms(theta_ext, y, eta)
        return eta, t, t.loglik.sum() - 0.5 * np.sum(u * u)

    def _gradient_parts(self, system: BucketSystem, chol: SchurFactor, t, u):
        """h, Mv, κ and the L-gradient bracket per observation (module docstring)."""
        assert isinstance(system, _BucketSystem)  # made by this class's _system
        bucket, rows, vals = system.bucket, system.rows, system.vals
        nb, m = bucket.n_blocks, bucket.dim
        # (H⁻¹ M_iᵀ) at the observation's own columns, from the H⁻¹ blocks of each piece's units
        inverse = chol.inverse_blocks()
        cm = np.zeros_like(vals)
        for piece in bucket.pieces:
            f, j = piece.terms
            sf, sj = self.design.slices[f], self.design.slices[j]
            units = inverse[piece.target].ravel()[piece.flat]
            units = units.reshape(piece.n_units, sf.stop - sf.start, sj.stop - sj.start)
            if not isinstance(piece, CompactPiece):  # batched matmul: (unit, a, b) @ (b, pattern)
                per_unit = np.matmul(units, rows[j].T).transpose(0, 2, 1)
                cm[:, sf] += per_unit.reshape(-1, sf.stop - sf.start)[piece.key]
                if piece.mirror:
                    per_unit = np.matmul(units.transpose(0, 2, 1), rows[f].T).transpose(0, 2, 1)
                    cm[:, sj] += per_unit.reshape(-1, sj.stop - sj.start)[piece.key]
            else:
                per_bin = units[piece.bin_unit]
                cm[:, sf] += np.einsum("nab,nb->na", per_bin, rows[j][piece.bin_pattern])[piece.key]
                if piece.mirror:
                    cm[:, sj] += np.einsum("nab,na->nb", per_bin, rows[f][piece.bin_pattern])[piece.key]
        h = np.einsum("ij,ij->i", vals, cm)
        r = np.bincount(bucket.flat_g.ravel(), ((t.dw * h)[:, None] * vals).ravel(), minlength=nb * m)
        v = chol.solve(r.reshape(nb, m))
        v_obs = v.reshape(-1)[bucket.flat_g]
        mv = np.einsum("ij,ij->i", vals, v_obs)
        kappa = t.g - 0.5 * (h * t.dw - t.w * mv)
        u_obs = u.reshape(-1)[bucket.flat_g]
        bracket = kappa[:, None] * u_obs - t.w[:, None] * cm - 0.5 * t.g[:, None] * v_obs
        return t, h, mv, kappa, bracket

    def _accumulate(self, bucket: Bucket, y, parts, g_theta, g_beta, g_fac) -> None:
        t, h, mv, kappa, bracket = parts
        self._accumulate_fixed(bucket, y, t, h, mv, kappa, g_theta, g_beta)
        local = self._local[self.design.buckets.index(bucket)]
        for k, sl in enumerate(self.design.slices):  # one bincount per term over (pattern, column) bins
            part = bracket[:, sl]
            g_fac[k] += np.bincount(local.bins[k].ravel(), part.ravel(), g_fac[k].size).reshape(
                g_fac[k].shape
            )

    def _accumulate_fixed(self, bucket: Bucket, y, t, h, mv, kappa, g_theta, g_beta) -> None:
        """∂ℓ/∂β and ∂ℓ/∂θ of one bucket (module docstring) added into ``g_beta`` and ``g_theta``."""
        n_thr = self.n_thresholds
        local = self._local[self.design.buckets.index(bucket)]
        if g_beta.size:
            g_beta += local.x.T @ kappa
        up, low = local.up, local.low
        coef_up = t.d_up - 0.5 * (h * t.dw_up + mv * t.dg_up)
        g_theta += np.bincount(local.y_up, coef_up[up], minlength=n_thr)
        coef_low = t.d_low - 0.5 * (h * t.dw_low + mv * t.dg_low)
        g_theta += np.bincount(local.y_low, coef_low[low], minlength=n_thr)


class _BucketRows:
    """What every evaluation reads of one bucket's observations, gathered once: their categories,
    patterns and rows of X, the threshold each one's gradient terms go to, and the (pattern, column)
    bins of each term's part of ∂ℓ/∂L."""

    def __init__(self, problem: LaplaceProblem, bucket: Bucket) -> None:
        obs, n_thr = bucket.obs, problem.n_thresholds
        self.every_row = bool(obs.size == problem.y.size and np.array_equal(obs, np.arange(obs.size)))
        self.y = problem.y[obs]
        self.pattern = problem.pattern[obs]
        self.x = problem.x[obs]
        self.up, self.low = self.y < n_thr, self.y > 0
        self.y_up, self.y_low = self.y[self.up], self.y[self.low] - 1
        self.bins = [
            self.pattern[:, None] * term.size + np.arange(term.size) for term in problem.design.terms
        ]


class _BucketSystem:
    """One bucket's random-effect system at given Λ: η at any modes, and H = I + Mᵀ diag(W) M
    assembled from the bucket's pieces and factorised (:class:`~humaneval.clmm.schur.SchurFactor`)."""

    def __init__(self, bucket: Bucket, rows, vals, eta_fix, n_patterns: int) -> None:
        self.bucket, self.rows, self.vals, self.eta_fix = bucket, rows, vals, eta_fix
        self.n_patterns = n_patterns
        self.outers = [
            np.einsum("sj,sk->sjk", rows[p.terms[0]], rows[p.terms[1]]).reshape(n_patterns, -1)
            for p in bucket.pieces
        ]
        nb = bucket.n_blocks
        self.shapes = {
            "kept": (nb, bucket.n_kept, bucket.n_kept),
            "cross": (nb, bucket.n_kept, bucket.n_elim * bucket.elim_size),
            "elim": (nb, bucket.n_elim, bucket.elim_size, bucket.elim_size),
        }

    def score(self, g: np.ndarray) -> np.ndarray:
        """Mᵀg per block (n_blocks × dim): the data part of ∂F/∂u."""
        bucket = self.bucket
        flat = np.bincount(
            bucket.flat_g.ravel(), (g[:, None] * self.vals).ravel(), minlength=bucket.n_blocks * bucket.dim
        )
        return flat.reshape(bucket.n_blocks, bucket.dim)

    def eta_at(self, u: np.ndarray) -> np.ndarray:
        return self.eta_fix + np.einsum("ij,ij->i", self.vals, u.reshape(-1)[self.bucket.flat_g])

    def factorise(self, w: np.ndarray) -> SchurFactor:
        bucket, shapes, n_pat = self.bucket, self.shapes, self.n_patterns
        parts = {name: np.zeros(int(np.prod(shape))) for name, shape in shapes.items()}
        for piece, outer in zip(bucket.pieces, self.outers, strict=True):
            if not isinstance(piece, CompactPiece):
                sums = np.bincount(piece.key, w, minlength=piece.n_units * n_pat).reshape(-1, n_pat)
                parts[piece.target][piece.flat] = (sums @ outer).ravel()
            else:
                sums = np.bincount(piece.key, w, minlength=piece.bin_pattern.size)
                per_bin = sums[:, None] * outer[piece.bin_pattern]
                parts[piece.target][piece.flat] = np.add.reduceat(per_bin, piece.starts, axis=0).ravel()
        a = parts["kept"].reshape(shapes["kept"]) + np.eye(bucket.n_kept)
        d = parts["elim"].reshape(shapes["elim"]) + np.eye(bucket.elim_size)
        return SchurFactor(a, parts["cross"].reshape(shapes["cross"]), d)
