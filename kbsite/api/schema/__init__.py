"""The OpenAPI schema and its docs (/api/schema/, /api/docs/): each operation's tag and summary
(:mod:`.operations`), the one error shape (:mod:`.errors`), the overview (:mod:`.overview`), and the chat proxies and
MCP, which are not DRF views (:mod:`.proxies`)."""

from kbsite.api.schema.errors import errors_documented
from kbsite.api.schema.operations import AutoSchema
from kbsite.api.schema.overview import overview_written
from kbsite.api.schema.proxies import proxies_described

__all__ = ["AutoSchema", "errors_documented", "overview_written", "proxies_described"]
