"""The permutation test's δ* for Kendall's τ and pairwise accuracy without a sign matrix per swap.

In the paired permutation test (Deutsch, Dror & Roth 2021) every round swaps the values of
metrics A and B cell by cell with indicators z (1 = swapped); with ζ = 1 − 2z (±1) and the
ordered-pair concordance count F(X) = Σ_{u,v} sign(H_u − H_v)·sign(X_u − X_v) of a group of units,

    F(A*) − F(B*) = Σ_u ζ_u c_u,   c_u = Σ_v sign(H_u − H_v)·(g_v(A_u) − g_v(B_u)),
    g_v(t) = sign(t − A_v) + sign(t − B_v),

because a pair's contribution to the difference changes sign with (ζ_u, ζ_v) → (−ζ_u, −ζ_v) and so
has no ζ_u ζ_v term, while the sum is a quadratic form,

    F(A*) + F(B*) = κ + ½ ζᵀQζ,
    Q_uv = sign(H_u − H_v)·(sign(A_u − A_v) + sign(B_u − B_v) − sign(A_u − B_v) − sign(B_u − A_v)).

τ_a has a constant normaliser, and so have τ_b and pairwise accuracy when no two units of a group
share a metric value: δ* is then the linear form alone, O(|S|·|D|) per round after an O(n log n)
set-up (few gold values) or O(n²) one. With tied metric values τ_b needs F(A*) itself (one
quadratic form instead of six sign-matrix products) and the tied pairs of A* and B*, counted per
tie class from the swaps.
"""

from __future__ import annotations

import bisect
import warnings

import numpy as np
from scipy import sparse

#: Broadcast (G, U, U) sign arrays up to this many entries; larger groups go one by one.
BROADCAST = 4_000_000
#: Largest quadratic form (float32 entries) held for τ_b with tied metric values.
MAX_FORM = 40_000_000


def layout(M: np.ndarray, level: str) -> np.ndarray:
    """Matrix (or stack of matrices) as groups × units for a level."""
    if level in ("pair", "acc"):
        return np.swapaxes(M, -1, -2)
    if level == "intra":
        return M
    return M.reshape(*M.shape[:-2], 1, -1)


def squared_class_sizes(M: np.ndarray) -> np.ndarray:
    """Σ over the tie classes of each row of ``M`` (G, U) of (class size)²; NaN cells are ignored."""
    g, _, starts, sizes = _tie_classes(M)
    return np.bincount(g[starts], sizes.astype(float) ** 2, minlength=M.shape[0])


def _tie_classes(M: np.ndarray):
    """Row and value of every non-NaN cell sorted by (row, value), class starts and sizes."""
    g, u = np.nonzero(~np.isnan(M))
    v = M[g, u]
    order = np.lexsort((v, g))
    g, v = g[order], v[order]
    new = np.ones(len(g), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (v[1:] != v[:-1])
    starts = np.flatnonzero(new)
    return g, (u[order], v), starts, np.diff(np.append(starts, len(g)))


def cross_signs(h: np.ndarray, t: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_v sign(h_u − h_v)·Σ_j sign(t_u − w_vj) for every unit u of one group (no NaN).

    With few distinct gold values (Likert means) each gold class contributes
    #{w < t} − #{w > t} by binary search, O(n log n); otherwise row blocks of the n × n signs.
    """
    classes, code = np.unique(h, return_inverse=True)
    out = np.zeros(len(h))
    if len(classes) * 16 <= len(h):
        order = np.argsort(t, kind="stable")
        ts = t[order]  # sorted queries: each binary search walks the pool in order
        for c, value in enumerate(classes):
            pool = np.sort(w[code == c].ravel())
            below = np.searchsorted(pool, ts, "left")
            above = len(pool) - np.searchsorted(pool, ts, "right")
            out[order] += np.sign(h[order] - value) * (below - above)
        return out
    step = max(1, BROADCAST // (len(h) * w.shape[1]))
    for lo in range(0, len(h), step):
        part = slice(lo, lo + step)
        sh = np.sign(h[part, None] - h[None, :])
        st = np.sign(t[part, None, None] - w[None]).sum(axis=2)
        out[part] = (sh * st).sum(axis=1)
    return out


def _per_group(h: np.ndarray, present: np.ndarray, t: np.ndarray, w: list[np.ndarray]) -> np.ndarray:
    """:func:`cross_signs` for every group of (G, U) arrays; 0 where missing."""
    G, U = h.shape
    if U <= 128 and G * U * U * len(w) <= BROADCAST:
        hz, tz = np.where(present, h, np.nan), np.where(present, t, np.nan)
        with np.errstate(invalid="ignore"):
            sh = np.nan_to_num(np.sign(hz[:, :, None] - hz[:, None, :]))
            st = sum(
                np.nan_to_num(np.sign(tz[:, :, None] - np.where(present, x, np.nan)[:, None, :])) for x in w
            )
        return np.where(present, (sh * st).sum(axis=2), 0.0)
    out = np.zeros((G, U))
    for g in range(G):
        keep = present[g]
        out[g, keep] = cross_signs(h[g, keep], t[g, keep], np.column_stack([x[g, keep] for x in w]))
    return out


def _form_entries(h, a, b, rows, cols) -> np.ndarray:
    """Q[rows][:, cols] for one group's vectors (float32, exact small integers)."""
    with np.errstate(invalid="ignore"):
        hr, ar, br = h[rows, None], a[rows, None], b[rows, None]
        hc, ac, bc = h[None, cols], a[None, cols], b[None, cols]
        q = np.sign(ar - ac) + np.sign(br - bc) - np.sign(ar - bc) - np.sign(br - ac)
        return np.nan_to_num(np.sign(hr - hc) * q).astype(np.float32)


class _BandedForm:
    """ζᵀQζ for one large group: cells sorted by gold value and cut into bands, only the blocks on
    and above the diagonal kept (Q is symmetric and 0 between cells of equal gold value)."""

    def __init__(self, h: np.ndarray, a: np.ndarray, b: np.ndarray):
        self.order = np.argsort(h, kind="stable")
        hs = h[self.order]
        classes = np.flatnonzero(np.r_[True, hs[1:] != hs[:-1]])
        self.by_class = len(classes) <= 16
        cuts = classes if self.by_class else np.linspace(0, len(h), 9).astype(int)[:-1]
        self.bands = list(zip(cuts, np.r_[cuts[1:], len(h)], strict=True))
        self.blocks = []
        for lo, hi in self.bands:
            start = hi if self.by_class else lo
            rows, cols = self.order[lo:hi], self.order[start:]
            block = np.empty((hi - lo, len(cols)), dtype=np.float32)
            for r in range(0, hi - lo, 256):
                block[r : r + 256] = _form_entries(h, a, b, rows[r : r + 256], cols)
            block[:, hi - start :] *= 2
            self.blocks.append((start, block))

    @staticmethod
    def size(h: np.ndarray) -> int:
        """Entries the blocks would hold (to refuse forms that would not fit)."""
        _, counts = np.unique(h, return_counts=True)
        n = len(h)
        if len(counts) <= 16:
            return int((n * n - (counts.astype(np.int64) ** 2).sum()) // 2)
        return n * n // 2 + n * n // 16

    def total(self) -> float:
        return float(sum(block.sum(dtype=np.float64) for _, block in self.blocks))

    def __call__(self, zeta: np.ndarray) -> np.ndarray:
        """ζᵀQζ for ζ (R, n)."""
        zs = zeta[:, self.order].astype(np.float32)
        out = np.zeros(len(zeta))
        for (lo, hi), (start, block) in zip(self.bands, self.blocks, strict=True):
            if block.size:
                out += ((zs[:, lo:hi] @ block).astype(float) * zs[:, start:]).sum(axis=1)
        return out


class _SortedCounts:
    """F(A*) of one large group with few gold values in O(n·β) per round instead of O(n²).

    The 2n candidate values (A_u and B_u of every cell; a round selects one of each pair) are sorted
    once and cut into blocks of about β at changes of value, a tie class longer than β forming a
    block of its own. Pairs in different blocks are ordered by their blocks, so they count through
    per-block tallies of the selected values by gold class; pairs within a block through a β × β
    sign matrix. A candidate is selected with indicator s = [A side] ± z of its cell, so the tallies
    are one sparse product with the swap indicators, and the within-block selections one gather.
    Everything is an exact integer count.
    """

    def __init__(
        self, h: np.ndarray, a: np.ndarray, b: np.ndarray, cells: np.ndarray, n_cells: int, block: int = 32
    ):
        n = len(h)
        values, gold = np.concatenate([a, b]), np.concatenate([h, h])
        order = np.argsort(values, kind="stable")
        v, g = values[order], gold[order]
        side_a = order < n
        cell = np.asarray(cells)[order % n]
        sign = np.where(side_a, -1.0, 1.0)  # s = [A side] + sign·z
        starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]]).tolist()
        ends = [*starts[1:], len(v)]
        blocks, regular = [], []
        i = 0
        while i < len(starts):  # greedy: as many whole tie classes as fit in β; a longer class alone
            lo = starts[i]
            if ends[i] - lo > block:
                blocks.append((lo, ends[i]))
                regular.append(False)
                i += 1
                continue
            j = bisect.bisect_right(ends, lo + block) - 1
            blocks.append((lo, ends[j]))
            regular.append(True)
            i = j + 1
        classes, cls = np.unique(g, return_inverse=True)
        block_of = np.repeat(np.arange(len(blocks)), [hi - lo for lo, hi in blocks])
        k = len(classes)
        segment = block_of * k + cls
        width_all = int(n_cells)  # the group's cells, present or not; ``cells`` are the present ones
        shape = (len(blocks) * k, width_all)
        self.tally = sparse.csr_matrix((sign.astype(np.float32), (segment, cell)), shape=shape)
        self.tally_const = np.bincount(segment, side_a.astype(float), minlength=len(blocks) * k)
        self.tally_const = self.tally_const.reshape(len(blocks), k, 1)
        self.shape = (len(blocks), k)
        self.sign = np.sign(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(float)
        kept = [blk for blk, keep in zip(blocks, regular, strict=True) if keep and blk[1] - blk[0] > 1]
        inner = np.array(kept, dtype=np.int64).reshape(-1, 2)
        lengths = inner[:, 1] - inner[:, 0]
        width = int(lengths.max(initial=1))
        # every block's members padded to ``width`` slots: position of slot j of block i, or −1
        pos = inner[:, :1] + np.arange(width)[None, :]
        pos = np.where(np.arange(width)[None, :] < lengths[:, None], pos, -1)
        filled = pos >= 0
        self.slot_cell = np.where(filled, cell[pos], width_all)  # padding: a row of zeros
        self.slot_sign = np.where(filled, sign[pos], 0.0).astype(np.float32)[:, :, None]
        self.slot_const = np.where(filled, side_a[pos], 0.0).astype(np.float32)[:, :, None]
        gp, vp = np.where(filled, g[pos], np.nan), np.where(filled, v[pos], np.nan)
        with np.errstate(invalid="ignore"):
            within = np.sign(gp[:, :, None] - gp[:, None, :]) * np.sign(vp[:, :, None] - vp[:, None, :])
        self.within = np.nan_to_num(within).astype(np.float32)

    def __call__(self, zt: np.ndarray) -> np.ndarray:
        """F(A*) for float32 swap indicators ``zt`` (cells + 1, R), one column per round, the last row 0."""
        R = zt.shape[1]
        tallies = (self.tally @ zt[:-1]).reshape(*self.shape, R) + self.tally_const  # (blocks, classes, R)
        before = np.cumsum(tallies, axis=0) - tallies
        cross = 2 * (tallies * np.matmul(self.sign, before)).sum(axis=(0, 1))
        mb = zt[self.slot_cell] * self.slot_sign + self.slot_const  # (blocks, width, R), float32
        within = (np.matmul(self.within, mb) * mb).sum(axis=(0, 1))  # integers < 2**24: exact in float32
        return cross + within.astype(float)


class SwapDifference:
    """δ* = EM(A*, H) − EM(B*, H) of Kendall's τ_b, τ_a or pairwise accuracy for swap indicators.

    Built by :meth:`build` from z-scored matrices with NaN wherever a cell is missing in any of
    them; ``None`` when the shortcut does not apply (pairwise accuracy with tied metric values, or
    a quadratic form that would not fit in memory).
    """

    def __init__(self, level: str, shape: tuple[int, int], linear: np.ndarray):
        self.level, self.shape = level, shape
        self.linear = linear  # (G, U) c_u times the group's weight (tie-free) or c_u (tied)
        self.ties: dict | None = None

    @classmethod
    def build(
        cls, H: np.ndarray, A: np.ndarray, B: np.ndarray, level: str, coefficient: str
    ) -> SwapDifference | None:
        h, a, b = layout(H, level), layout(A, level), layout(B, level)
        present = ~np.isnan(h)
        n = present.sum(axis=1).astype(float)
        untied_h = n**2 - squared_class_sizes(h)
        collapsed = np.concatenate([a, np.where(b != a, b, np.nan)], axis=1)
        tied = (squared_class_sizes(collapsed) > (~np.isnan(collapsed)).sum(axis=1)) & (untied_h > 0)
        needs_ties = tied.any() and coefficient != "kendall_a"
        if needs_ties and (level == "acc" or not cls._form_fits(h, present)):
            return None
        c = _per_group(h, present, a, [a, b]) - _per_group(h, present, b, [a, b])
        pairs = n * (n - 1)
        if needs_ties:
            out = cls(level, H.shape, c)
            out._prepare_ties(h, a, b, present, pairs, untied_h)
            return out
        with np.errstate(invalid="ignore", divide="ignore"):
            if level == "acc":
                scale = np.full(len(n), 1 / (2 * untied_h.sum()))
            else:
                per_group = 1 / pairs if coefficient == "kendall_a" else 1 / np.sqrt(untied_h * pairs)
                defined = np.isfinite(per_group) & (pairs > 0)
                scale = np.where(defined, per_group, 0.0) / max(int(defined.sum()), 1)
        return cls(level, H.shape, c * scale[:, None])

    @staticmethod
    def _form_fits(h: np.ndarray, present: np.ndarray) -> bool:
        G, U = h.shape
        if G == 1:
            return _BandedForm.size(h[0, present[0]]) <= MAX_FORM
        return G * U * U <= MAX_FORM

    def _prepare_ties(self, h, a, b, present, pairs, untied_h) -> None:
        """Everything τ_b needs per group when metric values tie: F(A*) by sorted counts, or κ and
        the quadratic form; and the members of every tie class on the A and B side."""
        G, U = h.shape
        kappa = np.zeros(G)
        form: _SortedCounts | _BandedForm | np.ndarray
        if G == 1 and len(np.unique(h[0, present[0]])) <= 64:
            keep = present[0]
            form = _SortedCounts(h[0, keep], a[0, keep], b[0, keep], np.flatnonzero(keep), U)
        else:
            if G == 1:
                keep = present[0]
                form = _BandedForm(h[0, keep], a[0, keep], b[0, keep])
                half_total = np.array([form.total() / 2])
            else:
                rows = np.arange(U)
                form = np.stack([_form_entries(h[g], a[g], b[g], rows, rows) for g in range(G)])
                half_total = form.sum(axis=(1, 2), dtype=np.float64) / 2
            f_a = _per_group(h, present, a, [a]).sum(axis=1)
            f_b = _per_group(h, present, b, [b]).sum(axis=1)
            kappa = f_a + f_b - half_total
        # tie classes of the collapsed union (a cell with A = B is one member, always present)
        same = present & (a == b)
        values = np.concatenate([np.where(present, a, np.nan), np.where(present & ~same, b, np.nan)], axis=1)
        g, (col, _), starts, sizes = _tie_classes(values)
        member_class = np.repeat(np.arange(len(starts)), sizes)
        big = sizes[member_class] >= 2
        cls_ids, inverse = np.unique(member_class[big], return_inverse=True)
        T = len(cls_ids)
        unit = col[big] % U
        side_b = col[big] >= U
        flat = g[big] * U + unit
        fixed_a, fixed_b = np.zeros(T), np.zeros(T)
        is_same = same[g[big], unit] & ~side_b
        moving = ~is_same  # a swap moves the cell's A value out of its class and its B value in
        entries = np.where(side_b[moving], 1.0, -1.0).astype(np.float32)  # exact small counts
        swing = sparse.csr_matrix((entries, (inverse[moving], flat[moving])), shape=(T, G * U))
        np.add.at(fixed_a, inverse[is_same | ~side_b], 1.0)
        np.add.at(fixed_b, inverse[is_same | side_b], 1.0)
        class_group = np.zeros((T, G))
        class_group[np.arange(T), g[starts][cls_ids]] = 1.0
        self.ties = {
            "form": form,
            "kappa": kappa,
            "swing": swing,
            "fixed": (fixed_a, fixed_b),
            "class_group": class_group,
            "pairs": pairs,
            "untied_h": untied_h,
            "present": present,
        }

    @property
    def by_columns(self) -> bool:
        """Whether the swaps are best passed as a (S, D, R) array seen as (R, S, D): the pooled
        τ_b with tied values reads one contiguous column of cells per round."""
        return self.ties is not None and isinstance(self.ties["form"], _SortedCounts)

    def __call__(self, z: np.ndarray) -> np.ndarray:
        """δ* for swap indicators z (R, S, D)."""
        zl = layout(z, self.level)
        if self.ties is None:
            zl = zl.astype(np.float32)
            return self.linear.sum() - 2 * (zl * self.linear).sum(axis=(1, 2), dtype=float)
        t = self.ties
        if self.by_columns:
            R, _, U = zl.shape  # one group: the pooled summaries
            zt = np.empty((U + 1, R), dtype=np.float32)  # one column per round; the last row pads
            zt[:-1] = np.ascontiguousarray(zl.reshape(R, -1).T)  # transpose the bytes, then widen
            zt[-1] = 0
            c = self.linear[0]  # integer counts: exact in float32 while Σ|c_u| < 2**24
            c = c.astype(np.float32) if np.abs(c).sum() < 2**24 else c
            diff = self.linear.sum(axis=1) - 2 * (zt[:-1].T @ c).astype(float)[:, None]
            total = 2 * t["form"](zt)[:, None] - diff
            moved = (t["swing"] @ zt[:-1]).T
        else:
            zl = zl.astype(np.float32)
            diff = self.linear.sum(axis=1) - 2 * (zl * self.linear).sum(axis=2, dtype=float)
            zeta = (1 - 2 * zl) * t["present"]
            form = t["form"]
            if isinstance(form, _BandedForm):
                total = t["kappa"] + form(zeta[:, 0, t["present"][0]])[:, None] / 2
            else:
                zg = zeta.transpose(1, 0, 2)
                total = t["kappa"] + (np.matmul(zg, form).astype(float) * zg).sum(axis=2).T / 2
            moved = (t["swing"] @ zl.reshape(len(zl), -1).T).T
        values = []
        for side, f in ((0, (total + diff) / 2), (1, (total - diff) / 2)):
            k = t["fixed"][side] + (moved if side == 0 else -moved)
            untied = t["pairs"] - (k * (k - 1)) @ t["class_group"]
            with np.errstate(invalid="ignore", divide="ignore"):
                value = f / np.sqrt(t["untied_h"] * untied)
            value = np.where(np.isfinite(value), value, np.nan)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                values.append(np.nanmean(value, axis=1))
        return values[0] - values[1]
