"""Random-effect design of a CLMM, laid out in independent dense blocks.

With spherical random effects u ~ N(0, I) and b = Λu (Λ block-diagonal with one lower-triangular
factor L_f per grouping factor, lme4/ordinal style), an observation i touches, for each grouping
factor f, the q_f effects of its group g_f(i) through the row z_f(i)ᵀ L_f. Observations are binned
by *pattern*, the distinct combination of their design rows over all terms (for
``(1 + system | annotator)`` one per system, for random intercepts a single one), so that the
weights W of the Hessian are summed per (group, pattern) before they meet the q×q outer products.

The Hessian of the random-effect mode problem, I + ΛᵀZᵀWZΛ, only couples groups that share an
observation. Its blocks are therefore the connected components of the graph whose nodes are the
groups of all fitted factors: for crossed-within-blocks designs they are the study's blocks, for a
single factor every group is its own block. Components with the same numbers of groups are
stacked into *buckets*, so that every Newton step is a handful of batched factorisations.

Within a block, the groups of one factor never share an observation, so their part of the Hessian
is block diagonal. With two or more factors, the one with the most effects is *eliminated* (its q×q
diagonal blocks D are inverted group by group) and only the Schur complement S = A − B D⁻¹ Bᵀ of
the *kept* factors is factorised densely: for a fully crossed study of 3 annotators and 100
documents a 15×15 matrix instead of 515×515. The effects of a block are laid out as [kept groups
of each kept factor in term order, eliminated groups], each group's q entries contiguous. With
three or more factors the kept part holds all but the eliminated factor (the general path).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.clmm.spec import RandomEffect
from humaneval.errors import ModelSpecError

#: (unit, pattern) grids larger than this many bins per observation keep only the occurring bins.
DENSE_BINS_PER_OBS = 4
DENSE_BINS_MIN = 65536


@dataclass(frozen=True, eq=False)
class FittedTerm:
    """A grouping factor as fitted: its size q, block structure and the design row of each pattern.

    ``zs`` holds z_f(p) for every *pattern* p: the distinct combinations of all terms' design
    rows (a handful for factor slopes, one for random intercepts only), so that sums over
    observations can be binned per (group, pattern).
    """

    factor: str
    size: int
    n_groups: int
    zs: np.ndarray  # P × q: row p is z_f(p)
    blocks: tuple[int, ...] = ()
    columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.blocks:
            object.__setattr__(self, "blocks", (self.size,))

    @property
    def covariance(self) -> str:
        if self.size == 1:
            return "intercept"
        if len(self.blocks) == 1:
            return "unstructured"
        return "diagonal" if all(b == 1 for b in self.blocks) else "block"

    @property
    def n_params(self) -> int:
        """Free parameters of L_f: b(b+1)/2 per correlated block of size b."""
        return sum(b * (b + 1) // 2 for b in self.blocks)


@dataclass(frozen=True, eq=False)
class HessianPiece:
    """One kind of q_k×q_j block of ΛᵀZᵀWZΛ inside a bucket.

    ``target`` is ``"kept"`` (a pair of kept terms' groups, into A), ``"elim"`` (the eliminated
    factor's groups, into D) or ``"cross"`` (a (kept group, eliminated group) cell sharing
    observations, into B; ``mirror``: its transpose is implied). Each unit's block is
    Σ_p W_{unit,p} A_k[p] A_j[p]ᵀ with W summed per (unit, pattern): ``key`` maps every observation
    to its bin, ``flat`` gives each unit's q_k×q_j entries in the flattened target array.

    Bins are all (unit, pattern) pairs (sums reshape to units × patterns), or, when that grid would be
    much larger than the data (continuous slopes on many groups), only the pairs that occur
    (:class:`CompactPiece`).
    """

    terms: tuple[int, int]
    target: str
    n_units: int
    key: np.ndarray
    flat: np.ndarray
    mirror: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class CompactPiece(HessianPiece):
    """A :class:`HessianPiece` binned by the (unit, pattern) pairs that occur: ``bin_pattern``/``bin_unit``
    per bin, sorted by unit, ``starts`` the first bin of each unit."""

    bin_pattern: np.ndarray
    bin_unit: np.ndarray
    starts: np.ndarray


@dataclass(frozen=True, eq=False)
class Bucket:
    """Blocks with the same numbers of groups per term, and their observations.

    A block's effects are [kept (``n_kept`` entries: each kept term's groups × q), eliminated
    (``n_elim`` groups × ``elim_size``)]. ``block`` is each observation's block and ``cols`` its
    p = Σ q_f local columns ordered by term; ``flat_g`` indexes the stacked gradient (n_blocks × dim).
    """

    obs: np.ndarray
    n_blocks: int
    n_kept: int
    n_elim: int
    elim_size: int
    block: np.ndarray
    cols: np.ndarray
    flat_g: np.ndarray
    pieces: tuple[HessianPiece, ...]

    @property
    def dim(self) -> int:
        return self.n_kept + self.n_elim * self.elim_size


@dataclass(frozen=True, eq=False)
class RandomDesign:
    """All fitted terms, each observation's pattern, the observation buckets and the eliminated term."""

    terms: tuple[FittedTerm, ...]
    buckets: tuple[Bucket, ...]
    slices: tuple[slice, ...]  # each term's part of an observation's p columns
    pattern: np.ndarray
    elim: int | None

    @property
    def n_blocks(self) -> int:
        return sum(b.n_blocks for b in self.buckets)

    @property
    def n_patterns(self) -> int:
        return int(self.terms[0].zs.shape[0])


def random_design(effects: tuple[RandomEffect, ...]) -> RandomDesign:
    """Lay out the random effects of any number of terms in independent blocks.

    The term with the most effects (groups × q) is eliminated by its Schur complement when there
    are two or more terms; the others are kept in a dense part of each block.
    """
    if not effects:
        raise ModelSpecError("a CLMM needs at least one random-effect term")
    uniq, pattern = _unique_rows(np.column_stack([e.z for e in effects]))
    bounds = np.cumsum([0] + [e.size for e in effects])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    fitted = tuple(
        FittedTerm(e.factor, e.size, e.n_groups, uniq[:, sl], e.blocks, e.columns)
        for e, sl in zip(effects, slices, strict=True)
    )
    n_pat = uniq.shape[0]
    codes = [e.codes for e in effects]
    n_obs = codes[0].size
    n_terms = len(fitted)
    elim = int(np.argmax([t.n_groups * t.size for t in fitted])) if n_terms > 1 else None
    kept = [k for k in range(n_terms) if k != elim]
    offsets = np.cumsum([0] + [t.n_groups for t in fitted])
    if n_terms == 1:
        comp = [np.arange(fitted[0].n_groups)]
    else:
        rows = np.concatenate([offsets[0] + codes[0]] * (n_terms - 1))
        cols = np.concatenate([offsets[k] + codes[k] for k in range(1, n_terms)])
        graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(int(offsets[-1]),) * 2)
        _, labels = connected_components(graph, directed=False)
        comp = [labels[offsets[k] : offsets[k + 1]] for k in range(n_terms)]
    # rank of each group among its factor's groups in the same component (its slot in the block)
    rank = [_rank_within(c) for c in comp]
    n_comp = int(max(c.max() for c in comp)) + 1
    shape = np.column_stack([np.bincount(c, minlength=n_comp) for c in comp])
    obs_comp = comp[0][codes[0]]
    used = np.unique(obs_comp)

    buckets = []
    for counts in np.unique(shape[used], axis=0):
        comps = used[np.all(shape[used] == counts[None, :], axis=1)]
        block_of_comp = np.full(n_comp, -1)
        block_of_comp[comps] = np.arange(comps.size)
        obs = np.flatnonzero(block_of_comp[obs_comp] >= 0)
        block = block_of_comp[obs_comp[obs]]
        start = {}
        m_kept = 0
        for k in kept:
            start[k] = m_kept
            m_kept += int(counts[k]) * fitted[k].size
        slot = [r[c[obs]] for r, c in zip(rank, codes, strict=True)]
        blocks = []
        for k, t in enumerate(fitted):
            first = start[k] + slot[k] * t.size if k != elim else m_kept + slot[k] * t.size
            blocks.append(first[:, None] + np.arange(t.size)[None, :])
        cols = np.concatenate(blocks, axis=1)
        n_e = int(counts[elim]) if elim is not None else 0
        q_elim = fitted[elim].size if elim is not None else 0
        layout = _PieceLayout(block, slot, fitted, start, m_kept, n_e, q_elim, n_pat, pattern[obs])
        pieces = [layout.piece("kept", k, j, codes, obs) for k in kept for j in kept]
        if elim is not None:
            pieces.append(layout.piece("elim", elim, elim, codes, obs))
            pieces += [layout.piece("cross", k, elim, codes, obs) for k in kept]
        dim = m_kept + n_e * q_elim
        buckets.append(
            Bucket(
                obs=obs,
                n_blocks=int(comps.size),
                n_kept=m_kept,
                n_elim=n_e,
                elim_size=q_elim,
                block=block,
                cols=cols,
                flat_g=block[:, None] * dim + cols,
                pieces=tuple(pieces),
            )
        )
    if sum(b.obs.size for b in buckets) != n_obs:
        raise ModelSpecError("internal error: some observations belong to no random-effect block")
    return RandomDesign(fitted, tuple(buckets), slices, pattern, elim)


def _unique_rows(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(z, axis=0, return_inverse=True)`` for a float matrix (same rows, order and codes):
    rows compared as raw bytes (one ``unique`` of a void view, where ``axis=0`` sorts a structured
    array field by field: 7 ms for the 1,500 × 10 maximal design), then the few distinct rows put in
    lexicographic order."""
    z = np.ascontiguousarray(z, dtype=float) + 0.0  # −0.0 becomes 0.0, as numeric comparison has it
    rows = z.view(np.dtype((np.void, z.dtype.itemsize * z.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.lexsort(z[first].T[::-1])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return z[first[order]], rank[np.asarray(inverse).ravel()]


def _rank_within(comp: np.ndarray) -> np.ndarray:
    """0, 1, … for the groups of each component, in the order of their codes."""
    order = np.lexsort((np.arange(comp.size), comp))
    first = np.searchsorted(comp[order], comp[order], side="left")
    rank = np.empty(comp.size, dtype=np.int64)
    rank[order] = np.arange(comp.size) - first
    return rank


@dataclass(frozen=True)
class _PieceLayout:
    """Index arithmetic of the three piece kinds of one bucket (see :class:`HessianPiece`)."""

    block: np.ndarray
    slot: list
    terms: tuple[FittedTerm, ...]
    start: dict
    m_kept: int
    n_elim: int
    q_elim: int
    n_pat: int
    pattern: np.ndarray

    def piece(self, target: str, k: int, j: int, codes: list, obs: np.ndarray) -> HessianPiece:
        unit_codes = codes[k][obs]
        if k != j:  # a cell of two factors' groups
            unit_codes = unit_codes * (self.terms[j].n_groups + 1) + codes[j][obs]
        units, inverse = np.unique(unit_codes, return_inverse=True)
        inverse = inverse.ravel()
        first = np.zeros(units.size, dtype=np.int64)
        first[inverse[::-1]] = np.arange(inverse.size)[::-1]
        b = self.block[first][:, None, None]
        a = np.arange(self.terms[k].size)[None, :, None]
        c = np.arange(self.terms[j].size)[None, None, :]
        sk = self.slot[k][first][:, None, None]
        sj = self.slot[j][first][:, None, None]
        if target == "kept":
            row = self.start[k] + sk * self.terms[k].size + a
            col = self.start[j] + sj * self.terms[j].size + c
            flat = (b * self.m_kept + row) * self.m_kept + col
        elif target == "elim":
            flat = ((b * self.n_elim + sk) * self.q_elim + a) * self.q_elim + c
        else:
            width = self.n_elim * self.q_elim
            flat = (
                (b * self.m_kept + self.start[k] + sk * self.terms[k].size + a) * width + sj * self.q_elim + c
            )
        key = inverse * self.n_pat + self.pattern
        compact = {}
        if units.size * self.n_pat > max(DENSE_BINS_PER_OBS * inverse.size, DENSE_BINS_MIN):
            occurring, key = np.unique(key, return_inverse=True)
            bin_unit = occurring // self.n_pat
            compact = {
                "bin_pattern": occurring % self.n_pat,
                "bin_unit": bin_unit,
                "starts": np.flatnonzero(np.r_[True, np.diff(bin_unit) > 0]),
            }
        return (CompactPiece if compact else HessianPiece)(
            terms=(k, j),
            target=target,
            n_units=int(units.size),
            key=key.ravel(),
            flat=flat.ravel(),
            mirror=target == "cross",
            **compact,
        )
