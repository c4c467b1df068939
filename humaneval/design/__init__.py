"""Study designs: which annotator judges which summaries, in which order, with which checks.

docs/design.md (generator, output formats, summary, datasheet);
the design rules of docs/design.md; dissertation §3.7. :func:`block_design` is the
compact table the simulator uses (docs/design.md). :func:`load_design` reads a design from a
path, a table or a :class:`Design` for every later stage.
"""

from humaneval.design.blocks import block_design, block_sizes, cut_blocks
from humaneval.design.bws import BWSBalance, bws_balance, bws_tuples
from humaneval.design.generate import generate_design
from humaneval.design.inputs import documents_of, read_documents, read_summaries
from humaneval.design.load import DesignLike, load_design
from humaneval.design.pairwise import PairBalance, pair_balance, pair_schedule, round_robin
from humaneval.design.plan import Design, DesignTexts
from humaneval.design.recheck import recheck_design, revisit
from humaneval.design.spec import BWSOptions, DesignSpec, Document, PairOptions, Summary
from humaneval.design.summary import CostSettings, DesignSummary
from humaneval.design.table import DESIGN_COLUMNS, read_design_csv, write_design_csv

__all__ = [
    "DESIGN_COLUMNS",
    "BWSBalance",
    "BWSOptions",
    "CostSettings",
    "Design",
    "DesignLike",
    "DesignSpec",
    "DesignSummary",
    "DesignTexts",
    "Document",
    "PairBalance",
    "PairOptions",
    "Summary",
    "block_design",
    "block_sizes",
    "bws_balance",
    "bws_tuples",
    "cut_blocks",
    "documents_of",
    "generate_design",
    "load_design",
    "pair_balance",
    "pair_schedule",
    "read_design_csv",
    "read_documents",
    "read_summaries",
    "recheck_design",
    "revisit",
    "round_robin",
    "write_design_csv",
]
