"""Filters for the document API."""

from __future__ import annotations

from kbsite.filtersets import LanguageFilter, OwnedFilterSet
from knowledge.models import Document


class DocumentFilterSet(OwnedFilterSet):
    language = LanguageFilter()

    class Meta:
        model = Document
        fields = ["doc_type", "namespace", "status", "language"]
