"""The crowdsourcing platforms' own APIs, as optional layers over the package's files.

What differs between platforms (pay rules, currency, form packaging, parser, client) is the
registry :mod:`humaneval.core.platforms`; this package holds the API layers it names.
:mod:`humaneval.platforms.prolific` (extra ``humaneval[prolific]``, on httpx) is the robust
request layer, the submissions, review and export; :mod:`~humaneval.platforms.prolific_study`
creates the draft study from a collection-server study folder, publishes, pauses and stops it,
and frees the server's slots of returned or timed-out submissions;
:mod:`~humaneval.platforms.prolific_bonus` pays bonuses once. :mod:`humaneval.platforms.mturk`
(extra ``humaneval[mturk]``, on boto3; MTurk takes no new requesters since 2026-07-30) creates the
HITs of a forms package, fetches their assignments, reviews, pays bonuses and grants
qualifications. All decide first (a plan you can read) and act only when asked to, and none ever
rejects someone whose answers are incomplete or unreadable: such cases are left for a person to
review. See docs/platforms.md and docs/prolific.md.
"""
