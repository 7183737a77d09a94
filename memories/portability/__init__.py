"""Moving memory between installations, and the end users' right to their data: a KB or an end user exported as
JSON Lines (``exporting``), in the format of ``records``, and a KB's export imported into a KB (``importing``)."""

from memories.portability.exporting import json_lines, records
from memories.portability.importing import ImportRefused, kb_import

__all__ = ["ImportRefused", "json_lines", "kb_import", "records"]
