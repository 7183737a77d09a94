"""Admin of webhooks: a bot's endpoints (the secret shown once, rotated, an endpoint enabled again) and the delivery
log (status, response code, time, each attempt) with redeliver. Operators see their own bots' only."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html

from kbsite.operators import OperatedAdmin
from kbsite.webhooks.addresses import UnsafeAddress, url_check
from kbsite.webhooks.events import EventType
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from kbsite.webhooks.services import delivery_redeliver


class WebhookEndpointForm(forms.ModelForm):
    url = forms.URLField(max_length=2000, assume_scheme="https", help_text="Where events are posted.")
    events = forms.MultipleChoiceField(choices=EventType.choices, widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = WebhookEndpoint
        fields = ["bot", "url", "events", "description", "is_active"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            url_check(url)
        except UnsafeAddress as exc:
            raise forms.ValidationError(str(exc)) from None
        return url


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(OperatedAdmin):
    form = WebhookEndpointForm
    list_display = ["url", "bot", "event_list", "state", "consecutive_failures", "created_at"]
    list_filter = ["is_active", "bot"]
    list_select_related = ["bot"]
    search_fields = ["url", "description", "bot__name"]
    readonly_fields = ["disabled_reason", "disabled_at", "consecutive_failures", "created_at", "updated_at"]
    actions = ["rotate_secret", "enable"]

    @admin.display(description="events")
    def event_list(self, obj):
        return ", ".join(obj.events)

    @admin.display(description="state", ordering="is_active")
    def state(self, obj):
        if obj.is_active:
            return "active"
        return format_html('<strong style="color:#ba2121">disabled</strong>: {}', obj.disabled_reason or "by hand")

    def save_model(self, request, obj, form, change):
        enabled = change and "is_active" in form.changed_data and obj.is_active
        if change and "is_active" in form.changed_data and not obj.is_active:
            obj.disabled_reason, obj.disabled_at = f"disabled by {request.user}", timezone.now()
        super().save_model(request, obj, form, change)
        if enabled:
            obj.enable()
        if not change:
            self.message_user(
                request, f"Signing secret of {obj.url} (shown once, copy it now): {obj.secret}", level=messages.WARNING
            )

    @admin.action(description="Rotate the signing secret (shown once)")
    def rotate_secret(self, request, queryset):
        for endpoint in queryset:
            secret = endpoint.secret_rotate()
            self.message_user(request, f"New signing secret of {endpoint.url} (shown once): {secret}", messages.WARNING)

    @admin.action(description="Enable again (count of failures started again)")
    def enable(self, request, queryset):
        for endpoint in queryset:
            endpoint.enable()
        self.message_user(request, f"{queryset.count()} endpoints enabled.")


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    fields = ["number", "started_at", "duration_ms", "response_code", "error", "response_body"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(OperatedAdmin):
    list_display = ["id", "event_type", "endpoint", "bot", "status", "attempts", "response_code", "created", "took"]
    list_filter = ["status", "event_type", "bot", "endpoint"]
    list_select_related = ["bot", "endpoint"]
    search_fields = ["event_id", "endpoint__url", "error"]
    date_hierarchy = "created_at"
    inlines = [WebhookAttemptInline]
    actions = ["redeliver"]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    @admin.display(description="created", ordering="created_at")
    def created(self, obj):
        return timezone.localtime(obj.created_at).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description="delivered after")
    def took(self, obj):
        """From the event to the receiver's 2xx."""
        if obj.delivered_at is None:
            return "-"
        return f"{(obj.delivered_at - obj.created_at).total_seconds():.2f} s"

    @admin.action(description="Redeliver (the same event, as a new delivery)")
    def redeliver(self, request, queryset):
        sent = [delivery for delivery in queryset.select_related("endpoint") if delivery_redeliver(delivery=delivery)]
        skipped = queryset.count() - len(sent)
        note = f"; {skipped} not sent: their endpoint is disabled (enable it first)" if skipped else ""
        self.message_user(request, f"{len(sent)} deliveries queued again{note}.")
