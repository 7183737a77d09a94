"""Facts drawn from uploaded documents (memories/ingest/items.py, the offline extractor)."""

from __future__ import annotations

from memories.models import Memory
from tests.conftest import run_queued_tasks


def test_a_heading_is_the_context_of_the_facts_under_it_not_part_of_the_first(api, kb):
    """Issue 42: an uploaded document's facts read "Refund policy: Customers can ask…", each under its heading; none
    glues the heading onto its first sentence ("Refund policy Customers can ask…")."""
    text = (
        b"# Refund policy\n\nCustomers can ask for a refund within 30 days of delivery.\n\n"
        b"## Shipping\n\nOrders ship within two working days. Express delivery costs six euros.\n\n"
        b"Opening hours\n\nThe shop opens at nine on weekdays.\n"
    )
    response = api.post("/api/v1/kbs/notes/documents/", files=[("file", ("shop.md", text))])
    assert response.status_code == 202, response.text
    run_queued_tasks()
    texts = set(Memory.objects.values_list("text", flat=True))
    assert "Refund policy: Customers can ask for a refund within 30 days of delivery." in texts
    assert "Shipping: Express delivery costs six euros." in texts
    assert "Opening hours: The shop opens at nine on weekdays." in texts
    assert not [t for t in texts if t.startswith(("Refund policy Customers", "# "))]
