"""Routes of the base app's own API: the bot's own settings, job runs, the bot's keys and those of its end users, its
webhook endpoints, its daily usage."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from kbsite.api import views
from kbsite.api.bot import BotView
from kbsite.models import USER_ID_RE
from kbsite.webhooks.api.views import WebhookEndpointViewSet

router = SimpleRouter()  # the API root is the memory router's
router.register("jobs", views.JobRunViewSet, basename="job")
router.register("keys", views.BotKeyViewSet, basename="key")
router.register("webhooks", WebhookEndpointViewSet, basename="webhook")
router.register(rf"users/(?P<user_id>{USER_ID_RE.strip('^$')})/keys", views.EndUserKeyViewSet, basename="end-user-key")

urlpatterns = [
    path("bot/", BotView.as_view(), name="bot"),
    path("usage/", views.UsageView.as_view(), name="usage"),
    *router.urls,
]
