"""Django settings for kbsite, split by concern; every variable, with its default, is in ``.env.example``.

``kbsite.env`` reads the environment for them; ``base`` is the web site and its API; ``database``, ``jobs`` and ``ai``
the services it uses; ``tuning`` the product's limits and knobs. Importing them has no side effects:
the embedded database and the generated secret key are prepared where a process starts
(:mod:`kbsite.boot`, called by ``manage.py``, ``kbsite.wsgi``, ``kbsite.asgi`` and the test set-up).
"""

from kbsite.settings.ai import *  # noqa: F403
from kbsite.settings.base import *  # noqa: F403
from kbsite.settings.database import *  # noqa: F403
from kbsite.settings.jobs import *  # noqa: F403
from kbsite.settings.tuning import *  # noqa: F403
from kbsite.settings.webhooks import *  # noqa: F403
