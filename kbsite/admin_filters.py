"""List filters the apps' admins share: the language a row was told in."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters

from kbsite import languages
from kbsite.filtersets import in_language
from kbsite.models import KnowledgeBase
from kbsite.operators import operated


class LanguageListFilter(admin.SimpleListFilter):
    """The rows in one language, as told when they were written (kbsite.filtersets.in_language: English takes in
    texts too short to tell); the choices are the languages held by the KBs the user operates (read from the KBs,
    not counted over every row)."""

    title = "language"
    parameter_name = "language"

    def lookups(self, request, model_admin):
        kbs = operated(KnowledgeBase.objects.all(), request.user)
        held = set().union(*kbs.values_list("languages", flat=True)) - {""}
        return sorted(((code, languages.NAMES.get(code, code)) for code in held), key=lambda choice: choice[1])

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        try:
            return in_language(queryset, self.value())
        except ValueError as exc:  # the admin reloads the list without it and says the filter was wrong
            raise IncorrectLookupParameters(exc) from exc
