"""Routes of the knowledge API: a KB's documents."""

from rest_framework.routers import SimpleRouter

from knowledge.api import views

router = SimpleRouter()
router.register(r"kbs/(?P<kb_name>[^/]+)/documents", views.DocumentViewSet, basename="document")

urlpatterns = router.urls
