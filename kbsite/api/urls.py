"""Routes of the base app's own API: job runs."""

from rest_framework.routers import SimpleRouter

from kbsite.api import views

router = SimpleRouter()  # the API root is the memory router's
router.register("jobs", views.JobRunViewSet, basename="job")

urlpatterns = router.urls
