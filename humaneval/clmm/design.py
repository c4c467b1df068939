"""Random-effect design of a CLMM, laid out in independent dense blocks.

With spherical random effects u ~ N(0, I) and b = Λu (Λ block-diagonal with one lower-triangular
factor L_f per grouping factor, lme4/ordinal style), an observation i of system s touches, for each
grouping factor f, the q_f effects of its group g_f(i) through the row z_f(s)ᵀ L_f, where z_f(s)
is (1, e_s) for intercept-and-slopes terms and (1) for intercept-only terms (spec §5.1).

The Hessian of the random-effect mode problem, I + ΛᵀZᵀWZΛ, only couples groups that share an
observation. Its blocks are therefore the connected components of the graph whose nodes are the
groups of all fitted factors: for crossed-within-blocks designs they are the study's blocks, for a
single factor every group is its own block. Components of equal dimension are stacked into
*buckets* so that every Newton step is a handful of batched dense factorisations.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.analysis.prepare import ClmmData, RandomTerm


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
    """One kind of q×q (or q1×q2) block of ΛᵀZᵀWZΛ inside a bucket.

    For a term's own groups (``terms=(f, f)``) each block is Σ_s W_{g,s} A_f[s] A_f[s]ᵀ, with W
    summed per (group, system); for a pair of terms, each (group, group) cell that shares
    observations gives Σ_s W_{c,s} A_f[s] A_f′[s]ᵀ, placed at ``flat`` and, transposed, at
    ``flat_t``. ``key`` maps each observation to its (block, system) bin of the weight sums.
    """

    terms: tuple[int, int]
    n_units: int
    key: np.ndarray
    flat: np.ndarray
    flat_t: np.ndarray | None


@dataclass(frozen=True, eq=False)
class Bucket:
    """Observations whose random-effect blocks all have the same dimension ``dim``.

    ``block`` is each observation's block (0..n_blocks−1) and ``cols`` its p = Σ q_f local columns,
    ordered by term; ``flat_g`` indexes the stacked gradient (n_blocks·dim); ``pieces`` assemble
    the stacked Hessian (n_blocks·dim·dim) from weight sums per group or cell and system.
    """

    obs: np.ndarray
    n_blocks: int
    dim: int
    block: np.ndarray
    cols: np.ndarray
    flat_g: np.ndarray
    pieces: tuple[HessianPiece, ...]


@dataclass(frozen=True, eq=False)
class RandomDesign:
    """All fitted terms and the observation buckets (module docstring)."""

    terms: tuple[FittedTerm, ...]
    buckets: tuple[Bucket, ...]
    slices: tuple[slice, ...]  # each term's part of an observation's p columns

    @property
    def n_blocks(self) -> int:
        return sum(b.n_blocks for b in self.buckets)

    @property
    def max_block_dim(self) -> int:
        return max(b.dim for b in self.buckets)


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
    """Lay out the random effects of ``terms`` for ``data`` in independent blocks."""
    fitted = tuple(fitted_term(t, data) for t in terms)
    n_sys = len(data.systems)
    node_offset = np.cumsum([0] + [t.n_groups for t in fitted])
    n_nodes = int(node_offset[-1])
    node_size = np.concatenate([np.full(t.n_groups, t.size) for t in fitted])
    nodes = np.column_stack([node_offset[k] + data.groups[t.factor] for k, t in enumerate(fitted)])

    rows = nodes[:, :-1].ravel() if nodes.shape[1] > 1 else np.empty(0, dtype=np.int64)
    cols = nodes[:, 1:].ravel() if nodes.shape[1] > 1 else np.empty(0, dtype=np.int64)
    graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n_nodes, n_nodes))
    _, comp = connected_components(graph, directed=False)

    # local offset of each node inside its component, and the component dimensions
    order = np.lexsort((np.arange(n_nodes), comp))
    comp_dim = np.bincount(comp, weights=node_size).astype(np.int64)
    sizes_sorted = node_size[order]
    start_of_comp = np.cumsum(np.r_[0, comp_dim])[comp[order]]
    local = np.empty(n_nodes, dtype=np.int64)
    local[order] = np.cumsum(np.r_[0, sizes_sorted[:-1]]) - start_of_comp

    obs_comp = comp[nodes[:, 0]]
    offsets = np.concatenate([np.arange(t.size) for t in fitted])
    term_of_col = np.concatenate([np.full(t.size, k) for k, t in enumerate(fitted)])
    obs_cols = local[nodes[:, term_of_col]] + offsets[None, :]

    node_block = np.full(n_nodes, -1)
    buckets = []
    for dim in np.unique(comp_dim[obs_comp]):
        comps = np.flatnonzero(comp_dim == dim)
        comps = comps[np.isin(comps, obs_comp)]
        block_of_comp = np.full(comp_dim.size, -1)
        block_of_comp[comps] = np.arange(comps.size)
        node_block[:] = block_of_comp[comp]
        obs = np.flatnonzero(comp_dim[obs_comp] == dim)
        block = block_of_comp[obs_comp[obs]]
        bcols = obs_cols[obs]
        pieces = [
            _piece((k, j), nodes[obs], data.system[obs], n_sys, fitted, node_block, local, int(dim))
            for k in range(len(fitted))
            for j in range(k, len(fitted))
        ]
        buckets.append(
            Bucket(
                obs=obs,
                n_blocks=int(comps.size),
                dim=int(dim),
                block=block,
                cols=bcols,
                flat_g=block[:, None] * dim + bcols,
                pieces=tuple(pieces),
            )
        )
    bounds = np.cumsum([0] + [t.size for t in fitted])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    return RandomDesign(fitted, tuple(buckets), slices)


def _piece(pair, nodes, system, n_sys, fitted, node_block, local, dim) -> HessianPiece:
    """Index arrays of the Hessian blocks of one term (pair == (f, f)) or of one pair of terms."""
    k, j = pair
    codes = nodes[:, k] * (int(nodes.max()) + 1) + nodes[:, j]
    units, inverse = np.unique(codes, return_inverse=True)
    first = np.zeros(units.size, dtype=np.int64)
    first[inverse[::-1]] = np.arange(inverse.size)[::-1]
    node_k, node_j = nodes[first, k], nodes[first, j]
    base = node_block[node_k][:, None, None] * dim
    rows = local[node_k][:, None, None] + np.arange(fitted[k].size)[None, :, None]
    cols = local[node_j][:, None, None] + np.arange(fitted[j].size)[None, None, :]
    return HessianPiece(
        terms=(k, j),
        n_units=int(units.size),
        key=inverse.ravel() * n_sys + system,
        flat=((base + rows) * dim + cols).ravel(),
        flat_t=None if k == j else ((base + cols) * dim + rows).ravel(),
    )
