"""Bundled automatic scorers that run fully offline (docs/scorers.md).

- :mod:`.faithfulness` / :mod:`.nli`: NLI faithfulness P(entail) − P(contradict) with MC dropout
  from a local model directory, SummaC-ZS aggregation, the labelled lexical fallback, and ROC AUC /
  balanced-accuracy meta-evaluation against binary labels;
- :mod:`.augment`: the ten task-adaptive prefix phrases for NLI training data;
- :mod:`.lexical`: FFCI-style lexical faithfulness, focus and coverage (not NLI);
- :mod:`.bias`, :mod:`.names`, :mod:`.ner`, :mod:`.probes`: word-list, entity-inclusion and
  hallucination bias, distinguishability, census first-name gender, person recognisers, probes;
- :mod:`.coherence`: entity-graph coherence and the shuffle test; :mod:`.cohesion`: repeated
  n-grams, adjacent-sentence cohesion and the GRUEN-style redundancy penalty.

Heavy backends (torch, transformers, spaCy) are imported only when used.
"""

from humaneval.scorers.augment import PHRASES, augment_nli, prefix_invariance
from humaneval.scorers.bias import (
    HELM_GENDER_WORDS,
    BiasScore,
    InputEntity,
    aligns,
    bias_report,
    distinguishability,
    entity_inclusion_bias,
    hallucination_bias,
    tvd,
    word_list_bias,
)
from humaneval.scorers.coherence import (
    ShuffleTestResult,
    entity_graph_coherence,
    entity_graph_score,
    shuffle_test,
)
from humaneval.scorers.cohesion import adjacent_cohesion, redundancy_penalty, repeated_ngram_share
from humaneval.scorers.faithfulness import (
    FaithfulnessEvaluation,
    faithfulness_auc,
    lexical_overlap_score,
    score_faithfulness,
)
from humaneval.scorers.lexical import (
    intersentential_coherence,
    lexical_faithfulness,
    lexical_focus_coverage,
    rouge_n_f1,
)
from humaneval.scorers.names import classify_person, first_name_genders
from humaneval.scorers.ner import heuristic_persons, spacy_persons
from humaneval.scorers.probes import make_probes
from humaneval.scorers.result import EmptyInputWarning, ScoreResult

__all__ = [
    "HELM_GENDER_WORDS",
    "PHRASES",
    "BiasScore",
    "EmptyInputWarning",
    "FaithfulnessEvaluation",
    "InputEntity",
    "ScoreResult",
    "ShuffleTestResult",
    "adjacent_cohesion",
    "aligns",
    "augment_nli",
    "bias_report",
    "classify_person",
    "distinguishability",
    "entity_graph_coherence",
    "entity_graph_score",
    "entity_inclusion_bias",
    "faithfulness_auc",
    "first_name_genders",
    "hallucination_bias",
    "heuristic_persons",
    "intersentential_coherence",
    "lexical_faithfulness",
    "lexical_focus_coverage",
    "lexical_overlap_score",
    "make_probes",
    "prefix_invariance",
    "redundancy_penalty",
    "repeated_ngram_share",
    "rouge_n_f1",
    "score_faithfulness",
    "shuffle_test",
    "spacy_persons",
    "tvd",
    "word_list_bias",
]
