"""What simulation already knows about the CLMM's Type I error on a design like the one analysed.

With few annotators the maximal CLMM cannot estimate the annotators' covariance and its contrasts reject
true null pairs too often: 200 null studies per design from the shared coherence model (5 systems, 10
pairs, α = 0.05, 3 annotators per block; ``simulations/clmm_type1.py``, docs/simulation.md) gave a Type I
error of 0.159 with 3 annotators in all and about 0.05 from 15 annotators on. :func:`clmm_calibration`
looks the analysed table up by its number of annotators and returns the caution
:func:`~humaneval.analysis.workflow.analyze` attaches: the simulated rate with its Clopper–Pearson
interval, judged by the interval (:func:`humaneval.stats.proportions.calibration_status`), and the
``humaneval power --null`` command that simulates the analysed design itself.
"""

from __future__ import annotations

from humaneval.core.structure import DesignStructure
from humaneval.stats.proportions import CALIBRATION_RANGE, calibration_status, clopper_pearson

#: Simulated Type I error of the maximal CLMM by total annotators: (annotators, design B×D×A, rate);
#: simulations/output/clmm_type1.csv.
CLMM_TYPE1: tuple[tuple[int, str, float], ...] = (
    (3, "1x100x3", 0.159),
    (6, "2x50x3", 0.0865),
    (12, "4x25x3", 0.0645),
    (15, "5x20x3", 0.058),
    (30, "10x10x3", 0.054),
    (60, "20x5x3", 0.0465),
    (150, "50x2x3", 0.0555),
    (300, "100x1x3", 0.0575),
)
#: Null studies behind each rate of :data:`CLMM_TYPE1`.
CLMM_TYPE1_TRIALS = 200


def design_text(structure: DesignStructure) -> str:
    """The analysed layout as ``humaneval power --design`` reads it (B×D×A, per block)."""
    blocks = max(structure.n_blocks, 1)
    docs = max(round(structure.n_documents / blocks), 1)
    annotators = max(round(structure.block_annotators.mean), 1)
    return f"{blocks}x{docs}x{annotators}"


def clmm_calibration(structure: DesignStructure) -> str | None:
    """The caution about the CLMM's Type I error on a design with ``structure``'s annotators, or None
    when the closest simulated design is calibrated.

    The closest simulated design is the one with the most annotators not above the table's (the
    smallest one below 3). "Inflated" needs the whole interval above the calibration range; a rate
    above it whose interval reaches into the range is "not shown to be calibrated".

    Examples
    --------
    >>> from humaneval.clmm.model import default_model
    >>> from humaneval.simulate.designs import SimDesign
    >>> from humaneval.core.structure import describe_structure
    >>> null = default_model().with_effects(0)
    >>> table = null.sample(SimDesign.parse("1x40x3").table(null.system_names), seed=1)
    >>> print(clmm_calibration(describe_structure(table)))  # doctest: +ELLIPSIS
    with 3 annotators the CLMM's contrasts reject true null pairs too often: 0.159 [0.111, 0.217] ...
    """
    annotators = structure.n_annotators
    below = [row for row in CLMM_TYPE1 if row[0] <= annotators] or [CLMM_TYPE1[0]]
    simulated, design, rate = below[-1]
    ci_low, ci_high = clopper_pearson(rate, CLMM_TYPE1_TRIALS)
    status = calibration_status(rate, ci_low, ci_high)
    if status is None or status == "deflated":
        return None
    low, high = CALIBRATION_RANGE
    interval = f"{rate:.3f} [{ci_low:.3f}, {ci_high:.3f}]"
    where = f"{CLMM_TYPE1_TRIALS} simulated null studies of {design} ({simulated} annotators)"
    check = (
        f"check this design: humaneval power --null --design {design_text(structure)} --tests clmm "
        f"--trials {CLMM_TYPE1_TRIALS}"
    )
    if status == "inflated":
        return (
            f"with {annotators} annotators the CLMM's contrasts reject true null pairs too often: "
            f"{interval} at α = 0.05 in {where}, above [{low:g}, {high:g}]; significant pairs may be "
            f"false — collect more annotators; {check}"
        )
    return (
        f"with {annotators} annotators the CLMM is not shown to be calibrated: its Type I error was "
        f"{interval} at α = 0.05 in {where}, an interval reaching above [{low:g}, {high:g}]; {check}"
    )
