"""Routes of the memory API: KBs and their input, memories and insights, end users, recall, context, archive, the bot
tools, the review queue."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from memories.api import context, kbs, memories, reviews, tools, users

router = DefaultRouter()
router.register("kbs", kbs.KnowledgeBaseViewSet, basename="kb")
router.register(r"kbs/(?P<kb_name>[^/]+)/memories", memories.MemoryViewSet, basename="memory")
router.register(r"kbs/(?P<kb_name>[^/]+)/insights", memories.InsightViewSet, basename="insight")
router.register("users", users.EndUserViewSet, basename="end-user")
router.register("reviews", reviews.ReviewItemViewSet, basename="review")

urlpatterns = [
    path("context/", context.ContextView.as_view(), name="context"),
    path("kbs/<str:kb_name>/archive/", kbs.ArchiveView.as_view(), name="archive"),
    path("tools/", tools.ToolListView.as_view(), name="tools"),
    path("tools/<str:name>/", tools.ToolCallView.as_view(), name="tool-call"),
    *router.urls,
]
