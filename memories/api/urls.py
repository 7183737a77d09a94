"""Routes of the memory API: KBs and their input, memories and insights, recall, context, archive, the bot tools."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from memories.api import reviews, views

router = DefaultRouter()
router.register("kbs", views.KnowledgeBaseViewSet, basename="kb")
router.register(r"kbs/(?P<kb_name>[^/]+)/memories", views.MemoryViewSet, basename="memory")
router.register(r"kbs/(?P<kb_name>[^/]+)/insights", views.InsightViewSet, basename="insight")
router.register("users", views.EndUserViewSet, basename="end-user")
router.register("reviews", reviews.ReviewItemViewSet, basename="review")

urlpatterns = [
    path("context/", views.ContextView.as_view(), name="context"),
    path("kbs/<str:kb_name>/archive/", views.ArchiveView.as_view(), name="archive"),
    path("tools/", views.ToolListView.as_view(), name="tools"),
    path("tools/<str:name>/", views.ToolCallView.as_view(), name="tool-call"),
    *router.urls,
]
