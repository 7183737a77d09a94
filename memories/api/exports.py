"""JSON Lines exports of the API (a KB's, an end user's) as streamed downloads."""

from __future__ import annotations

from django.http import StreamingHttpResponse

from memories import rights


def json_lines_response(records, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(rights.json_lines(records), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
