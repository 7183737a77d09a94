"""Filters the apps' lists share: strict booleans, UTC moments, and the end user a row belongs to."""

from __future__ import annotations

from datetime import UTC

import django_filters


class StrictBooleanFilter(django_filters.TypedChoiceFilter):
    """true/false only: an unrecognised value is a 400, not silently ignored."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("choices", [("true", "true"), ("false", "false")])
        kwargs.setdefault("coerce", lambda value: value == "true")
        super().__init__(*args, **kwargs)


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 moment, compared in UTC: any offset Python reads (up to a day) works, where PostgreSQL refuses
    those past 15:59."""

    def filter(self, qs, value):
        return super().filter(qs, value.astimezone(UTC) if value is not None and value.tzinfo else value)


class OwnedFilterSet(django_filters.FilterSet):
    """Lists of rows that may belong to an end user: one user's, or the shared ones."""

    user_id = django_filters.CharFilter(field_name="end_user__external_id", help_text="One end user's rows only.")
    shared = StrictBooleanFilter(
        field_name="end_user", lookup_expr="isnull", help_text="true: shared rows only; false: end users' rows only."
    )
