"""Filters for the memory API and its admin-facing lists."""

from __future__ import annotations

import json

import django_filters
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from kbsite.api.fields import metadata_check
from kbsite.filtersets import LanguageFilter, OwnedFilterSet, StrictBooleanFilter, UtcDateTimeFilter
from kbsite.languages.fulltext import held, query_in
from kbsite.models import KnowledgeBase
from memories.models import Insight, Memory


class LifeSpanFilterSet(OwnedFilterSet):
    """Rows that are live until retired: the live ones unless ``status`` asks for the retired ones or all."""

    status = django_filters.ChoiceFilter(
        choices=[("live", "live"), ("retired", "retired"), ("all", "all")],
        method="filter_status",
        empty_label=None,
        help_text="live (default), retired, or all.",
    )

    def filter_queryset(self, queryset):
        # Live is the default view: retired rows only when asked for.
        if not self.form.cleaned_data.get("status"):
            queryset = queryset.live()
        return super().filter_queryset(queryset)

    def filter_status(self, queryset, name, value):
        if value == "live":
            return queryset.live()
        if value == "retired":
            return queryset.retired()
        return queryset


class MemoryFilterSet(LifeSpanFilterSet):
    kind = django_filters.MultipleChoiceFilter(choices=Memory.Kind.choices)
    consolidated = StrictBooleanFilter()
    quarantined = StrictBooleanFilter()
    mode = django_filters.ChoiceFilter(choices=Memory._meta.get_field("mode").choices)
    entity = django_filters.CharFilter(method="filter_entity", help_text="Memories tagged with this entity.")
    topic = django_filters.CharFilter(method="filter_topic", help_text="Memories tagged with this topic.")
    q = django_filters.CharFilter(method="filter_q", help_text="Full-text query (web search syntax).")
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")
    session = django_filters.CharFilter(
        field_name="source_messages__session__external_id", distinct=True, help_text="Extracted from this session."
    )
    metadata = django_filters.CharFilter(
        method="filter_metadata",
        help_text='Memories whose metadata holds all of these keys and values: a JSON object, e.g. {"channel":"web"}.',
    )
    language = LanguageFilter()

    class Meta:
        model = Memory
        fields = ["status", "kind", "consolidated", "quarantined", "mode", "entity", "topic", "q", "language"]

    def filter_metadata(self, queryset, name, value):
        try:
            wanted = metadata_check(json.loads(value))
        except (ValueError, serializers.ValidationError) as exc:
            raise ValidationError({"metadata": [f"Not a JSON object: {exc}"]}) from exc
        return queryset.filter(metadata__contains=wanted)

    def filter_entity(self, queryset, name, value):
        return queryset.filter(entities__contains=[value.strip().lower()])

    def filter_topic(self, queryset, name, value):
        return queryset.filter(topics__contains=[value.strip().lower()])

    def filter_q(self, queryset, name, value):
        kbs = KnowledgeBase.objects.filter(pk__in=queryset.values("kb_id").distinct())
        return queryset.filter(search_vector=query_in(value, held(kbs)))


class InsightFilterSet(LifeSpanFilterSet):
    language = LanguageFilter()

    class Meta:
        model = Insight
        fields = ["status", "language"]
