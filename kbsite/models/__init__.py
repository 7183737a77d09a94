"""The base models every domain uses, one module each: bots, API keys, knowledge bases, end users, job runs, rate
limits, replicas' write marks, the embedding model's state (and the webhooks', in ``kbsite/webhooks/models.py``).

They were born in the ``memories`` app and keep its table names (``memories_bot`` …), so that a database of
an earlier release keeps its rows. Every name is importable from here (``from kbsite.models import Bot``).
"""

from kbsite.models.bots import Bot
from kbsite.models.embeddings import EmbeddingState
from kbsite.models.end_users import EndUser, EndUserQuerySet, Erasure
from kbsite.models.jobs import JobRun
from kbsite.models.keys import ApiKey, ApiKeyQuerySet
from kbsite.models.knowledge_bases import KnowledgeBase, KnowledgeBaseManager, KnowledgeBaseQuerySet
from kbsite.models.modes import Mode
from kbsite.models.names import NAME_RE, USER_ID_RE, name_validator, user_id_validator
from kbsite.models.ratelimits import RateBucket, RateLimitedDay
from kbsite.models.replicas import WriteMark
from kbsite.models.stats import DailyStat
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint

__all__ = [
    "NAME_RE",
    "USER_ID_RE",
    "ApiKey",
    "ApiKeyQuerySet",
    "Bot",
    "DailyStat",
    "EmbeddingState",
    "EndUser",
    "EndUserQuerySet",
    "Erasure",
    "JobRun",
    "KnowledgeBase",
    "KnowledgeBaseManager",
    "KnowledgeBaseQuerySet",
    "Mode",
    "RateBucket",
    "RateLimitedDay",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WriteMark",
    "name_validator",
    "user_id_validator",
]
