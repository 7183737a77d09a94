"""Root URL configuration: admin, API v1, the chat proxy (OpenAI's APIs, and Anthropic's), schema and docs, and the
error pages (JSON under /api/, /openai/ and /anthropic/)."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from kbsite import views
from memories.proxy import urls as proxy_urls

api_v1 = [
    path("", include("kbsite.api.urls")),
    path("", include("memories.api.urls")),
    path("", include("knowledge.api.urls")),
]

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/health/", views.health, name="health"),
    path("api/v1/", include(api_v1)),
    path("openai/v1/", include("memories.proxy.urls")),
    path("anthropic/v1/", include(proxy_urls.anthropic)),
    path("api/schema/", SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", authentication_classes=[], permission_classes=[]),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", authentication_classes=[], permission_classes=[]),
        name="api-redoc",
    ),
]

handler400 = "kbsite.errors.bad_request"
handler404 = "kbsite.errors.page_not_found"
handler500 = "kbsite.errors.server_error"
