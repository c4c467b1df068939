"""Random-effect design of a CLMM, laid out in independent dense blocks.

With spherical random effects u ~ N(0, I) and b = Λu (Λ block-diagonal with one lower-triangular
factor L_f per grouping factor, lme4/ordinal style), an observation i of system s touches, for each
grouping factor f, the q_f effects of its group g_f(i) through the row z_f(s)ᵀ L_f, where z_f(s)
is (1, e_s) for intercept-and-slopes terms and (1) for intercept-only terms (spec §5.1).

The Hessian of the random-effect mode problem, I + ΛᵀZᵀWZΛ, only couples groups that share an
observation. Its blocks are therefore the connected components of the graph whose nodes are the
groups of all fitted factors: for crossed-within-blocks designs they are the study's blocks, for a
single factor every group is its own block. Components with the same numbers of groups are
stacked into *buckets*, so that every Newton step is a handful of batched factorisations.

Within a block, the groups of one factor never share an observation, so their part of the Hessian
is block diagonal. With two factors, the one with more groups is *eliminated* (its q×q diagonal
blocks D are inverted group by group) and only the Schur complement S = A − B D⁻¹ Bᵀ of the
*kept* factor is factorised densely: for a fully crossed study of 3 annotators and 100 documents a
15×15 matrix instead of 515×515. The effects of a block are laid out as [kept groups, eliminated
groups], each group's q entries contiguous.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.analysis.prepare import ClmmData, RandomTerm
from humaneval.errors import ModelSpecError


@dataclass(frozen=True, eq=False)
class FittedTerm:
    """A grouping factor as fitted: the covariance form, its size q and the design rows z_f(s)."""

    factor: str
    covariance: str
    size: int
    n_groups: int
    zs: np.ndarray  # S × q: row s is z_f(s)

    @property
    def n_params(self) -> int:
        """Free parameters of L_f: q(q+1)/2 for unstructured, q for diagonal, 1 for an intercept."""
        return self.size * (self.size + 1) // 2 if self.covariance == "unstructured" else self.size


@dataclass(frozen=True, eq=False)
class HessianPiece:
    """One kind of q×q block of ΛᵀZᵀWZΛ inside a bucket.

    ``target`` is ``"kept"`` (the kept factor's groups, into A), ``"elim"`` (the eliminated factor's
    groups, into D) or ``"cross"`` (an (kept group, eliminated group) cell sharing observations,
    into B). Each unit's block is Σ_s W_{unit,s} A_k[s] A_j[s]ᵀ with W summed per (unit, system):
    ``key`` maps every observation to its bin, ``flat`` gives each unit's q_k×q_j entries in the
    flattened target array.
    """

    terms: tuple[int, int]
    target: str
    n_units: int
    key: np.ndarray
    flat: np.ndarray


@dataclass(frozen=True, eq=False)
class Bucket:
    """Blocks with the same number of kept and eliminated groups, and their observations.

    A block's effects are [kept (``n_kept`` = groups × q), eliminated (``n_elim`` groups × ``elim_size``)].
    ``block`` is each observation's block and ``cols`` its p = Σ q_f local columns ordered by term;
    ``flat_g`` indexes the stacked gradient (n_blocks × dim).
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
    """All fitted terms, the observation buckets, and which term is kept / eliminated."""

    terms: tuple[FittedTerm, ...]
    buckets: tuple[Bucket, ...]
    slices: tuple[slice, ...]  # each term's part of an observation's p columns
    kept: int
    elim: int | None

    @property
    def n_blocks(self) -> int:
        return sum(b.n_blocks for b in self.buckets)


def fitted_term(term: RandomTerm, data: ClmmData) -> FittedTerm:
    n_sys = len(data.systems)
    size = term.size(n_sys)
    zs = np.zeros((n_sys, size))
    zs[:, 0] = 1.0
    if size > 1:
        zs[np.arange(1, n_sys), np.arange(1, n_sys)] = 1.0
    n_groups = int(data.groups[term.factor].max()) + 1 if data.nobs else 0
    return FittedTerm(term.factor, term.covariance, size, n_groups, zs)


def random_design(data: ClmmData, terms: tuple[RandomTerm, ...]) -> RandomDesign:
    """Lay out the random effects of one or two ``terms`` for ``data`` in independent blocks."""
    if not 1 <= len(terms) <= 2:
        raise ModelSpecError(f"the native engine fits one or two grouping factors, not {len(terms)}")
    fitted = tuple(fitted_term(t, data) for t in terms)
    n_sys = len(data.systems)
    codes = [np.asarray(data.groups[t.factor], dtype=np.int64) for t in fitted]
    if len(fitted) == 1:
        kept, elim = 0, None
        comp = [np.arange(fitted[0].n_groups)]
    else:
        elim = int(np.argmax([t.n_groups * t.size for t in fitted]))
        kept = 1 - elim
        n0 = fitted[0].n_groups
        graph = coo_matrix(
            (np.ones(data.nobs), (codes[0], n0 + codes[1])), shape=(n0 + fitted[1].n_groups,) * 2
        )
        _, labels = connected_components(graph, directed=False)
        comp = [labels[:n0], labels[n0:]]
    # rank of each group among its factor's groups in the same component (its slot in the block)
    rank = [_rank_within(c) for c in comp]
    n_comp = int(max(c.max() for c in comp)) + 1
    per_comp = [np.bincount(c, minlength=n_comp) for c in comp]
    q_kept = fitted[kept].size
    obs_comp = comp[kept][codes[kept]]
    shape = np.column_stack([per_comp[kept], per_comp[elim] if elim is not None else np.zeros(n_comp, int)])

    buckets = []
    for n_k, n_e in np.unique(shape[np.unique(obs_comp)], axis=0):
        comps = np.flatnonzero((shape[:, 0] == n_k) & (shape[:, 1] == n_e))
        comps = comps[np.isin(comps, obs_comp)]
        block_of_comp = np.full(n_comp, -1)
        block_of_comp[comps] = np.arange(comps.size)
        obs = np.flatnonzero(block_of_comp[obs_comp] >= 0)
        block = block_of_comp[obs_comp[obs]]
        m_kept = int(n_k) * q_kept
        slot = [r[c[obs]] for r, c in zip(rank, codes, strict=True)]
        cols = []
        for k, t in enumerate(fitted):
            start = slot[k] * t.size if k == kept else m_kept + slot[k] * t.size
            cols.append(start[:, None] + np.arange(t.size)[None, :])
        cols = np.concatenate(cols, axis=1)
        q_elim = fitted[elim].size if elim is not None else 0
        layout = _PieceLayout(block, slot, fitted, kept, elim, m_kept, int(n_e), q_elim, n_sys)
        pieces = [layout.piece("kept", data.system[obs], codes, obs)]
        if elim is not None:
            pieces += [layout.piece(t, data.system[obs], codes, obs) for t in ("elim", "cross")]
        dim = m_kept + int(n_e) * q_elim
        buckets.append(
            Bucket(
                obs=obs,
                n_blocks=int(comps.size),
                n_kept=m_kept,
                n_elim=int(n_e),
                elim_size=q_elim,
                block=block,
                cols=cols,
                flat_g=block[:, None] * dim + cols,
                pieces=tuple(pieces),
            )
        )
    bounds = np.cumsum([0] + [t.size for t in fitted])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    return RandomDesign(fitted, tuple(buckets), slices, kept, elim)


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
    kept: int
    elim: int | None
    m_kept: int
    n_elim: int
    q_elim: int
    n_sys: int

    def piece(self, target: str, system: np.ndarray, codes: list, obs: np.ndarray) -> HessianPiece:
        k = self.kept if target != "elim" else self.elim
        j = self.elim if target != "kept" else k
        if target == "cross":
            unit_codes = codes[k][obs] * (self.terms[j].n_groups + 1) + codes[j][obs]
        else:
            unit_codes = codes[k][obs]
        units, inverse = np.unique(unit_codes, return_inverse=True)
        first = np.zeros(units.size, dtype=np.int64)
        first[inverse[::-1]] = np.arange(inverse.size)[::-1]
        b = self.block[first][:, None, None]
        a = np.arange(self.terms[k].size)[None, :, None]
        c = np.arange(self.terms[j].size)[None, None, :]
        sk = self.slot[k][first][:, None, None]
        if target == "kept":
            row = sk * self.terms[k].size
            flat = (b * self.m_kept + row + a) * self.m_kept + row + c
        elif target == "elim":
            flat = ((b * self.n_elim + sk) * self.q_elim + a) * self.q_elim + c
        else:
            sj = self.slot[j][first][:, None, None]
            width = self.n_elim * self.q_elim
            flat = (b * self.m_kept + sk * self.terms[k].size + a) * width + sj * self.q_elim + c
        return HessianPiece(
            terms=(k, j),
            target=target,
            n_units=int(units.size),
            key=inverse.ravel() * self.n_sys + system,
            flat=flat.ravel(),
        )
