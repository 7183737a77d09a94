"""How recall weighs what it finds: the weight of each ranked list, the boosts, and how much each list brings.

Measured on LoCoMo (../shared/eval/) through the recall benchmark; RECALL_RRF_K, the fusion constant, is a
setting (see kbsite/settings/tuning.py).
"""

FTS_WEIGHT = 3.0
VECTOR_WEIGHT = 3.0
# The neighbouring turns of strong matches (see neighbours.conversation_context); with SUBJECT_WEIGHT,
# LoCoMo R@10 0.637 -> 0.657 going from 1.5 to 2.5 (flat to 3.0, worse past it).
CONTEXT_WEIGHT = 2.5
CONTEXT_SEEDS = 20
KIND_WEIGHT = {"user_profile": 1.3, "preference": 1.2, "env": 1.1, "insight": 1.1}
# A memory whose subject (its first entity: the speaker of a turn, the person a fact is about) is named in
# the query is more likely what the question is about (LoCoMo: R@10 0.612 -> 0.640, budget 0.667 -> 0.696).
SUBJECT_WEIGHT = 1.5
# A memory dated inside the day, month or year the query names (see query.query_period).
DATE_WEIGHT = 2.0
# The words of the subject a question asks about (recall.concepts): a lighter list than the question's own words.
CONCEPT_WEIGHT = 1.5
# Asked where, an end user's latest memories that name a place (kbsite.languages.places), a list of this weight,
# this long: "shifted to bangalore last month" answers "where does he live?" in no word of it.
PLACE_WEIGHT = 1.5
PLACE_CANDIDATES = 10
# Candidates each ranked list brings.
CANDIDATES = 60
# A vector neighbour less similar than this is not a match: it only shows the KB has nothing closer.
VECTOR_MIN_SIMILARITY = 0.2
# Each ranked list of a table weighs by its table: the turns searched beside their facts (recall.turns). On
# LoCoMo's dev half with the replayed LLM facts, R@10 / within 2,000 characters: 0.718 / 0.800 at 1.0, 0.745 / 0.800
# at 1.5, 0.734 / 0.805 at 1.25, 0.736 / 0.804 at 2.0 (no turns: 0.630 / 0.677).
TABLE_WEIGHT = {"turn": 1.5}
