from django.urls import path
from rest_framework.routers import SimpleRouter

from knowledge.api import views

router = SimpleRouter()
router.register(r"kbs/(?P<kb_name>[^/]+)/documents", views.DocumentViewSet, basename="document")

urlpatterns = [
    path("kbs/<str:kb_name>/archive/", views.ArchiveView.as_view(), name="archive"),
    path("tools/", views.ToolListView.as_view(), name="tools"),
    path("tools/<str:name>/", views.ToolCallView.as_view(), name="tool-call"),
    *router.urls,
]
