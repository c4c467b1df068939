"""Study designs: which annotator rates which summaries, in which order.

Analysis specification §6.2 and the design rules of §7; dissertation §3.7.
"""

from humaneval.design.blocks import block_design

__all__ = ["block_design"]
