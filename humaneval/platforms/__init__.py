"""The crowdsourcing platforms' own APIs, as optional layers over the package's files.

:mod:`humaneval.platforms.mturk` (extra ``humaneval[mturk]``, on boto3) creates the HITs of a
forms package, fetches their assignments into :func:`humaneval.collect.parse_mturk_results`,
approves or rejects them by the QC rules of :mod:`humaneval.qc`, pays bonuses and grants
qualifications. :mod:`humaneval.platforms.prolific` (extra ``humaneval[prolific]``, on httpx)
lists a study's submissions, approves or rejects them by the same rules from the collection
server's database, and downloads Prolific's export. Both decide first (a plan you can read)
and act only when asked to, and neither ever rejects someone whose answers are incomplete or
unreadable: such cases are left for a person to review. See docs/platforms.md.
"""
