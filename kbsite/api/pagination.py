"""Pagination of every API list."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """Page-number pagination with a client-chosen page size (at most 500)."""

    page_size_query_param = "page_size"
    max_page_size = 500
