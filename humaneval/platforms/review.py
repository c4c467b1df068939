"""Which submissions to approve, reject or leave to a person: one rule for both platforms.

A submission is **rejected** only when the participant failed at least
``QCRules.min_failed_checks_for_rejection`` instructed-response checks (IMCs: the platforms'
accepted ground for rejection; failed gold controls, speed or straight-lining never are) *and*
every screen of theirs was read without problems, so a check cannot count as failed merely
because its answer went missing. Anything unclear (no record of the participant, incomplete
answers, unreadable fields) is **review**: a person decides. Everyone else is **approved**,
including duplicate workers and surplus participants, who did the work and are excluded from
the analysis, not from pay.
"""

from __future__ import annotations

from humaneval.qc import QCRules

APPROVE, REJECT, REVIEW = "approve", "reject", "review"

#: Sent with a rejection. Prolific requires at least 100 characters.
REJECTION_MESSAGE = (
    "Your submission failed {failed} of the {total} instructed attention checks of this study (questions "
    "that tell you which answer to give), so it cannot be accepted. Thank you for your time."
)


def decide(
    *,
    known: bool,
    complete: bool,
    readable: bool,
    imc_failed: int,
    checks_total: int,
    rules: QCRules,
) -> tuple[str, str]:
    """``(action, reason)`` for one submission by the rule of this module."""
    if not known:
        return REVIEW, "no answers on record for this submission; check by hand"
    if not complete:
        return REVIEW, "answers are incomplete; check by hand (never rejected automatically)"
    if not readable:
        return REVIEW, "some answers could not be read; check by hand (never rejected automatically)"
    if imc_failed >= rules.min_failed_checks_for_rejection:
        return REJECT, f"failed {imc_failed} of {checks_total} attention checks"
    return APPROVE, f"passed the attention-check rule ({imc_failed} failed)"


def rejection_message(failed: int, total: int) -> str:
    return REJECTION_MESSAGE.format(failed=failed, total=total)
