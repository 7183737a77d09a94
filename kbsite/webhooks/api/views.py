"""The webhooks API: the calling bot's endpoints (list, register, read, update, delete, rotate the secret), each
one's delivery log, and redelivering one of its deliveries."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.webhooks.api.serializers import WebhookDeliverySerializer, WebhookEndpointSerializer
from kbsite.webhooks.models import WebhookDelivery, WebhookEndpoint
from kbsite.webhooks.services import delivery_redeliver

TAGS = ["webhooks"]


@extend_schema_view(
    list=extend_schema(tags=TAGS),
    create=extend_schema(tags=TAGS),
    retrieve=extend_schema(tags=TAGS),
    partial_update=extend_schema(tags=TAGS),
    destroy=extend_schema(tags=TAGS),
)
class WebhookEndpointViewSet(
    ReplicaReadsMixin,
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The bot's webhook endpoints. POST registers one (``url``, ``events``) and answers its signing secret, once;
    each event is then posted to it as JSON (``id``, ``type``, ``created``, ``data``) with the header
    ``Kbsite-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>``. A URL
    that resolves to a loopback, private or link-local address is refused. An endpoint whose deliveries keep
    failing is disabled (``is_active`` false, ``disabled_reason``); PATCH ``is_active`` true enables it again."""

    serializer_class = WebhookEndpointSerializer
    lookup_value_regex = "[0-9]+"
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return WebhookEndpoint.objects.none()
        return WebhookEndpoint.objects.filter(bot=self.request.user).order_by("-created_at", "-id")

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = serializer.save(bot=request.user)
        data = self.get_serializer_class()(endpoint, context={"secret": endpoint.secret}).data
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer):
        before = serializer.instance.is_active
        endpoint = serializer.save()
        if endpoint.is_active and not before:
            endpoint.enable()
        elif before and not endpoint.is_active:
            endpoint.disabled_reason, endpoint.disabled_at = "disabled by the bot", timezone.now()
            endpoint.save(update_fields=["disabled_reason", "disabled_at"])

    @extend_schema(tags=TAGS, request=None, responses={200: WebhookEndpointSerializer})
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request, pk=None):
        """A new signing secret, answered once; the old one signs nothing from now on."""
        endpoint = self.get_object()
        secret = endpoint.secret_rotate()
        return Response(self.get_serializer_class()(endpoint, context={"secret": secret}).data)

    @extend_schema(tags=TAGS, responses={200: WebhookDeliverySerializer(many=True)})
    @action(detail=True, methods=["get"])
    def deliveries(self, request, pk=None):
        """The endpoint's deliveries, newest first, each with its attempts (status code or error, time taken)."""
        endpoint = self.get_object()
        deliveries = (
            WebhookDelivery.objects.filter(endpoint=endpoint)
            .prefetch_related("attempt_log")
            .order_by("-created_at", "-id")
        )
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)

    @extend_schema(
        tags=TAGS,
        request=None,
        parameters=[
            OpenApiParameter("delivery_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The delivery's id.")
        ],
        responses={202: WebhookDeliverySerializer},
    )
    @action(detail=True, methods=["post"], url_path=r"deliveries/(?P<delivery_id>[0-9]+)/redeliver")
    def redeliver(self, request, pk=None, delivery_id=None):
        """Send one of the endpoint's deliveries again: the same event (its id and body, byte for byte), signed
        afresh when it is sent, as a new delivery (``redelivery_of`` names the one sent again, null once that
        is pruned) whose attempts are logged as any other's. Answers the new delivery, queued; 409 while the
        endpoint is disabled."""
        endpoint = self.get_object()
        delivery = get_object_or_404(WebhookDelivery.objects.filter(endpoint=endpoint), pk=delivery_id)
        delivery.endpoint = endpoint
        again = delivery_redeliver(delivery=delivery)
        if again is None:
            return Response(
                {"detail": "This endpoint is disabled: enable it first (PATCH is_active true), then redeliver."},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(WebhookDeliverySerializer(again).data, status=status.HTTP_202_ACCEPTED)
