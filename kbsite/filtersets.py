"""Filters the apps' lists share: strict booleans, UTC moments, a text's language, and the end user a row belongs
to."""

from __future__ import annotations

from datetime import UTC

import django_filters
from rest_framework.exceptions import ValidationError

from kbsite import languages


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


def in_language(queryset, code: str):
    """The rows of ``queryset`` in the language ``code``, as told when they were written (``en``: those read as
    English, a text too short to tell included). ValueError for a value that is no language's code: the caller says
    so (a 400), not an empty list."""
    code = code.strip().lower()
    if not languages.is_code(code):
        raise ValueError(f"Not a language code (such as en, es, de): {code!r}.")
    if code in languages.ENGLISH:
        return queryset.filter(language__in=languages.ENGLISH)
    return queryset.filter(language=code)


class LanguageFilter(django_filters.CharFilter):
    """The rows in one language (:func:`in_language`); a value that is no language's code is a 400."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault(
            "help_text",
            "Rows in this language, as told when they were written: a code such as es (en: English, or a text too "
            "short to tell).",
        )
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if not value:
            return qs
        try:
            return in_language(qs, value)
        except ValueError as exc:
            raise ValidationError({self.field_name: [str(exc)]}) from exc


class OwnedFilterSet(django_filters.FilterSet):
    """Lists of rows that may belong to an end user: one user's, or the shared ones."""

    user_id = django_filters.CharFilter(field_name="end_user__external_id", help_text="One end user's rows only.")
    shared = StrictBooleanFilter(
        field_name="end_user", lookup_expr="isnull", help_text="true: shared rows only; false: end users' rows only."
    )
