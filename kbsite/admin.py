"""Admin of the base models: bots with their limits and their API keys (a new key is shown once), and job runs with
retry and, for one waiting for the LLM budget, "run now offline"."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from kbsite.jobs import job_force_offline, job_retry, jobs_resume_waiting
from kbsite.keys import key_issue
from kbsite.models import ApiKey, Bot, JobRun
from kbsite.operators import OperatedAdmin
from kbsite.webhooks import admin as _webhooks_admin  # noqa: F401 - endpoints and the delivery log


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    fields = ["name", "prefix", "end_user", "read_only", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Bot)
class BotAdmin(OperatedAdmin):
    list_display = ["name", "is_active", "requests_per_minute", "kb_count", "key_count", "created_at"]
    list_filter = ["is_active"]
    search_fields = ["name", "description"]
    readonly_fields = ["created_at"]
    fieldsets = [
        (None, {"fields": ["name", "description", "is_active", "operators", "created_at"]}),
        (
            "Limits",
            {
                "fields": ["requests_per_minute", "llm_tokens_per_day", "when_budget_spent"],
                "description": "Also the bot's own, at GET/PATCH /api/v1/bot/. A new limit holds from the next "
                "request; past it a key is answered 429 (counted on the dashboard). Once the day's LLM tokens "
                "(UTC) are spent, answers are extractive and extraction goes offline or waits, as chosen here "
                "(budget.spent is sent to its webhooks); raising the budget takes up at once what waited.",
            },
        ),
    ]
    filter_horizontal = ["operators"]
    inlines = [ApiKeyInline]
    actions = ["issue_key", "issue_read_only_key"]

    def get_readonly_fields(self, request, obj=None):
        # Who operates a bot is a superuser's call.
        return self.readonly_fields if request.user.is_superuser else [*self.readonly_fields, "operators"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(_kbs=Count("knowledge_bases", distinct=True), _keys=Count("api_keys", distinct=True))
        )

    @admin.display(description="Knowledge bases", ordering="_kbs")
    def kb_count(self, obj):
        return obj._kbs

    @admin.display(description="API keys", ordering="_keys")
    def key_count(self, obj):
        return obj._keys

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change:
            jobs_resume_waiting(bot_id=obj.pk)  # a raised budget takes up what waited for it
        if not change:
            _, plain = key_issue(obj)
            self.message_user(
                request,
                f"API key for {obj.name} (shown once, copy it now): {plain}",
                level=messages.WARNING,
            )

    @admin.action(description="Issue a new API key (shown once)")
    def issue_key(self, request, queryset):
        for bot in queryset:
            _, plain = key_issue(bot, name="issued in admin")
            self.message_user(request, f"New API key for {bot.name} (shown once): {plain}", level=messages.WARNING)

    @admin.action(description="Issue a new read-only API key (shown once)")
    def issue_read_only_key(self, request, queryset):
        for bot in queryset:
            _, plain = key_issue(bot, name="read-only, issued in admin", read_only=True)
            self.message_user(
                request, f"New read-only API key for {bot.name} (shown once): {plain}", level=messages.WARNING
            )


@admin.register(ApiKey)
class ApiKeyAdmin(OperatedAdmin):
    list_display = ["prefix", "bot", "end_user", "read_only", "name", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["read_only", "revoked_at"]
    list_select_related = ["bot", "end_user"]
    search_fields = ["prefix", "name", "bot__name", "end_user__external_id"]
    fields = [
        "bot",
        "end_user",
        "read_only",
        "name",
        "prefix",
        "hashed_key",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    readonly_fields = [field for field in fields if field != "name"]
    actions = ["revoke"]

    def has_add_permission(self, request):
        # Keys are issued from the bot page so that the plain key can be shown once.
        return False

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset):
        for key in queryset.filter(revoked_at__isnull=True):
            key.revoke()
        self.message_user(request, "Keys revoked.")


@admin.register(JobRun)
class JobRunAdmin(OperatedAdmin):
    list_display = ["id", "kind", "kb", "status", "mode", "target_link", "facts", "tokens", "duration", "created"]
    # memories.admin.end_users adds a filter by end user (the runs that worked on their data).
    list_filter = ["status", "kind", "mode", "kb__bot", "kb"]
    list_select_related = ["kb__bot", "object_type"]
    search_fields = ["target", "error"]
    date_hierarchy = "created_at"
    actions = ["retry", "run_offline"]

    @admin.action(description="Retry selected failed jobs")
    def retry(self, request, queryset):
        retried = [job for job in queryset.filter(status=JobRun.Status.FAILED) if job_retry(job=job)]
        self.message_user(request, f"{len(retried)} failed jobs queued again.")

    @admin.action(description="Run now offline (selected jobs waiting for the LLM budget)")
    def run_offline(self, request, queryset):
        """Take up each selected waiting run's input at once with the offline heuristics, whatever the budget and
        without changing the bot (its other runs still wait). The queryset is the operator's bots' runs only."""
        selected = queryset.count()
        forced = [
            new
            for job in queryset.filter(status=JobRun.Status.WAITING)
            if (new := job_force_offline(job=job, by=f"admin:{request.user.get_username()}"))
        ]
        if forced:
            self.message_user(request, f"{len(forced)} waiting jobs queued to run now offline (no LLM tokens).")
        if len(forced) < selected:
            self.message_user(
                request,
                f"{selected - len(forced)} selected jobs were not run offline: only a job waiting for the LLM budget "
                "(status 'Waiting for the LLM budget') whose input is still there can be.",
                level=messages.WARNING,
            )

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields] + ["duration"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        # A run is the product's record: its page is read-only (Close, no Save); the list's actions retry it.
        return obj is None and super().has_change_permission(request, obj)

    @admin.display(description="target", ordering="target")
    def target_link(self, obj):
        """What the job works on, by name, linked to its page when it is one row (an item, a document)."""
        label = obj.target or "-"
        if obj.object_type_id and obj.object_id:
            ct = obj.object_type
            url = reverse(f"admin:{ct.app_label}_{ct.model}_change", args=[obj.object_id])
            return format_html('<a href="{}">{}</a>', url, label if obj.target else f"{ct.name} {obj.object_id}")
        return label

    # Its legend in its header, a line each, so that the list still reads at 1,400 pixels.
    @admin.display(description=mark_safe("items read → facts:<br>+added ↻superseded<br>−skipped ⚠quarantined"))
    def facts(self, obj):
        """Items read, then facts: +added ↻superseded −skipped ⚠quarantined (spelt out on hover)."""
        return format_html(
            '<span title="{} items read; facts: {} added, {} superseded, {} skipped, {} quarantined">'
            "{} → +{} ↻{} −{} ⚠{}</span>",
            obj.items_read,
            obj.facts_added,
            obj.facts_superseded,
            obj.facts_skipped,
            obj.facts_quarantined,
            obj.items_read,
            obj.facts_added,
            obj.facts_superseded,
            obj.facts_skipped,
            obj.facts_quarantined,
        )

    @admin.display(description="tokens in / out")
    def tokens(self, obj):
        return f"{obj.tokens_in:,} / {obj.tokens_out:,}"

    @admin.display(description="created", ordering="created_at")
    def created(self, obj):
        """When it was queued, short (the list reads at 1,400 pixels whatever the ids' length)."""
        return timezone.localtime(obj.created_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description="duration")
    def duration(self, obj):
        ms = obj.duration_ms
        return "-" if ms is None else format_html("{} ms", ms)
