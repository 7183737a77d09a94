from django.urls import path
from rest_framework.routers import DefaultRouter

from memories.api import views

router = DefaultRouter()
router.register("kbs", views.KnowledgeBaseViewSet, basename="kb")
router.register(r"kbs/(?P<kb_name>[^/]+)/memories", views.MemoryViewSet, basename="memory")
router.register(r"kbs/(?P<kb_name>[^/]+)/insights", views.InsightViewSet, basename="insight")

urlpatterns = [path("context/", views.ContextView.as_view(), name="context"), *router.urls]
