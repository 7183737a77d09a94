"""What the knowledge app tells others (receivers are in receivers.py)."""

from django.dispatch import Signal

# Sent when a document's indexing job has finished (``document``: its chunks are in place). Memories mines
# uploaded and sent documents for facts that cite their chunks (memories/receivers.py).
document_indexed = Signal()
