"""Per-bot operator access in the admin: a staff user operates the bots they are given (``Bot.operators``) and
sees only those bots' data on every admin page: lists, change pages, searches, filters, actions, autocompletes,
the choices of every form, the recall console, the upload page and the dashboard. Superusers see every bot.
An id of another bot's row is a row not found wherever it is given: a raw-id field shows no label for it, an add
form pre-filled with it drops it, and a list filtered by it lists nothing (so an action on all of it acts on
nothing).

Each admin of bot data derives from :class:`OperatedAdmin`; :func:`bot_path` finds the way from a model to its bot
(through its ``bot`` or its ``kb``), which is also how the choices of forms and filters are limited.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.contrib.admin.widgets import ForeignKeyRawIdWidget
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db.models import ForeignKey, ManyToManyField, QuerySet

OPERATORS_GROUP = "Operators"

# The apps whose models an operator curates (their rows all belong to a bot).
OPERATED_APPS = ("kbsite", "memories", "knowledge")


def bot_path(model) -> str | None:
    """The lookup from ``model`` to the bot its rows belong to: a bot is its own, a row with a ``bot`` is that
    bot's, a row with a ``kb`` is its KB's bot's; None for a model that is not bot data (users, content types)."""
    from kbsite.models import Bot, KnowledgeBase

    if model is Bot:
        return "pk"
    for name, owner, path in (("bot", Bot, "bot"), ("kb", KnowledgeBase, "kb__bot")):
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.many_to_one and field.related_model is owner:
            return path
    return None


def operated_bot_ids(user) -> list[int] | None:
    """The ids of the bots ``user`` operates; None for a superuser (every bot). Kept on the user object for the
    request, so a page asks once."""
    if user.is_superuser:
        return None
    if not hasattr(user, "_operated_bot_ids"):
        user._operated_bot_ids = list(user.operated_bots.values_list("pk", flat=True)) if user.is_authenticated else []
    return user._operated_bot_ids


def operated(queryset: QuerySet, user, path: str | None = None) -> QuerySet:
    """``queryset`` limited to the rows of the bots ``user`` operates (all of them for a superuser)."""
    bots = operated_bot_ids(user)
    if bots is None:
        return queryset
    path = path or bot_path(queryset.model)
    if path is None:
        raise ValueError(f"{queryset.model.__name__} rows belong to no bot; say which path leads to one")
    return queryset.filter(**{f"{path}__in": bots})


class OperatedRelatedFilter(admin.RelatedFieldListFilter):
    """A related-field filter offering only the bots, KBs or end users the operator may see."""

    def field_choices(self, field, request, model_admin):
        ordering = self.field_admin_ordering(field, request, model_admin) or field.related_model._meta.ordering
        rows = operated(field.related_model._default_manager.all(), request.user)
        return [(row.pk, str(row)) for row in rows.order_by(*ordering)]

    def has_output(self):
        # Django drops a filter of one choice (an operator of one bot) with its parameters: the list was then the
        # operator's whole list, whatever the filter named. A filter in use stays, and filters.
        return super().has_output() or bool(self.used_parameters)


def named_ids(model, lookup: str, values: list[str]) -> tuple[type, set[str]] | None:
    """The related model of bot data whose rows a filter parameter names by id, and those ids:
    ``kb__bot__id__exact`` (or ``kb__bot``, ``kb__bot__exact``, ``kb__bot__id__in``) names bots. None for a
    parameter that names no rows of bot data by id (a field's value, a date, ``__isnull``, a filter's own name)."""
    parts = lookup.split("__")
    related, rest = None, []
    for index, name in enumerate(parts):
        try:
            field = model._meta.pk if name == "pk" else model._meta.get_field(name)
        except FieldDoesNotExist:
            break
        if not field.is_relation or field.related_model is None:
            break
        model = related = field.related_model
        rest = parts[index + 1 :]
    if related is None or bot_path(related) is None:
        return None
    if rest[:1] and rest[0] in ("pk", "id", related._meta.pk.name):
        rest = rest[1:]
    if rest not in ([], ["exact"], ["in"]):
        return None
    ids = {part for value in values for part in (value.split(",") if rest == ["in"] else [value])}
    return related, ids


class OperatedChangeList(ChangeList):
    """The change list of an operator: a filter that names a row they may not see (another bot's bot, KB, end
    user, memory…) lists nothing, never a wider list, and so an action on all of it (select_across) acts on
    nothing."""

    def get_queryset(self, request, exclude_parameters=None):
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset if self._names_only_seen_rows(request) else queryset.none()

    def _names_only_seen_rows(self, request) -> bool:
        for lookup, values in self.get_filters_params().items():
            named = named_ids(self.model, lookup, values)
            if named is None:
                continue
            related, ids = named
            try:
                seen = operated(related._default_manager.filter(pk__in=ids), request.user).count()
            except (ValueError, TypeError, ValidationError):
                return False
            if seen != len(ids):
                return False
        return True


class OperatedRawIdWidget(ForeignKeyRawIdWidget):
    """A raw-id field whose label (the related row's text, beside the id) is looked up among the rows the operator
    may see: Django's looks through the model's default manager, so any id typed or pre-filled (``?memory=<id>``)
    showed another bot's row. An id of another bot gets no label and no link, as an id of no row does."""

    def __init__(self, rel, admin_site, queryset: QuerySet, **kwargs):
        super().__init__(rel, admin_site, **kwargs)
        self.queryset = queryset

    def label_and_url_for_value(self, value):
        key = self.rel.get_related_field().name
        try:
            seen = self.queryset.filter(**{key: value}).exists()
        except (ValueError, TypeError, ValidationError):
            seen = False
        return super().label_and_url_for_value(value) if seen else ("", "")


class OperatedAdmin(admin.ModelAdmin):
    """An admin of bot data: every query, form choice and filter is limited to the bots the user operates."""

    bot_path: str | None = None  # from the model to its bot; None: as bot_path() knows it

    def get_queryset(self, request):
        queryset = operated(super().get_queryset(request), request.user, self.bot_path)
        # An autocomplete pages through this queryset as it is: the pages of an unordered one may repeat or skip
        # rows. The model's ordering is not enough: a query that counts (GROUP BY) drops it. (A change list
        # orders the queryset its own way.)
        if not queryset.query.order_by:
            queryset = queryset.order_by(*queryset.model._meta.ordering, "pk")
        return queryset

    def get_changelist(self, request, **kwargs):
        return OperatedChangeList

    def get_list_filter(self, request):
        return [self._operated_filter(entry) for entry in super().get_list_filter(request)]

    def _operated_filter(self, entry):
        if not isinstance(entry, str):
            return entry
        model, field = self.model, None
        for name in entry.split("__"):
            field = model._meta.get_field(name)
            model = field.related_model
        if model is not None and bot_path(model) is not None:
            return (entry, OperatedRelatedFilter)
        return entry

    def has_add_permission(self, request):
        # A row whose way to its bot (its kb or bot) is read-only on the add form would belong to no bot (and
        # fail on saving): such rows are made by the product, never here.
        owner = (self.bot_path or bot_path(self.model) or "pk").split("__")[0]
        if owner != "pk" and owner in self.get_readonly_fields(request, None):
            return False
        return super().has_add_permission(request)

    def get_changeform_initial_data(self, request):
        """The add form's values from the query string, less any id of a row the operator may not see (a
        pre-filled ``?memory=<id>`` of another bot's is dropped, as if it had not been given)."""
        initial = super().get_changeform_initial_data(request)
        for name, value in list(initial.items()):
            try:
                field = self.opts.get_field(name)
            except FieldDoesNotExist:
                continue
            if not field.is_relation or not field.concrete or bot_path(field.related_model) is None:
                continue
            ids = value if isinstance(value, list) else [value]
            try:
                seen = operated(field.related_model._default_manager.filter(pk__in=ids), request.user).count()
            except (ValueError, TypeError, ValidationError):
                seen = -1
            if seen != len(set(ids)):
                del initial[name]
        return initial

    def formfield_for_foreignkey(self, db_field: ForeignKey, request, **kwargs):
        if "queryset" not in kwargs and bot_path(db_field.related_model) is not None:
            kwargs["queryset"] = operated(db_field.related_model._default_manager.all(), request.user)
            if "widget" not in kwargs and db_field.name in self.raw_id_fields:
                if db_field.name not in self.get_autocomplete_fields(request):
                    kwargs["widget"] = OperatedRawIdWidget(
                        db_field.remote_field, self.admin_site, kwargs["queryset"], using=kwargs.get("using")
                    )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field: ManyToManyField, request, **kwargs):
        if "queryset" not in kwargs and bot_path(db_field.related_model) is not None:
            kwargs["queryset"] = operated(db_field.related_model._default_manager.all(), request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


def ensure_operators_group(**kwargs) -> None:
    """The Operators group (after each migrate): every permission on the operated apps' models, except making,
    deleting or re-assigning bots, which is a superuser's. Runs once the last operated app has migrated, when
    every model's permissions exist."""
    if kwargs.get("app_config") is not None and kwargs["app_config"].label != OPERATED_APPS[-1]:
        return
    group, _ = Group.objects.get_or_create(name=OPERATORS_GROUP)
    permissions = Permission.objects.filter(content_type__app_label__in=OPERATED_APPS).exclude(
        codename__in=["add_bot", "delete_bot"]
    )
    group.permissions.add(*permissions)
