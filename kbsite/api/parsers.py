"""Request parsers that refuse what cannot be stored (see kbsite.text) with a 400 that says where, before any view
sees the data: NUL characters and lone surrogates in any string or file name, and bodies nested too deep."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError, UnsupportedMediaType

from kbsite.text import UnstorableText, text_check


def _checked(data):
    try:
        text_check(data)
    except UnstorableText as exc:
        raise ParseError(str(exc)) from exc
    return data


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:  # Python's decoder gives up on very deep nesting
            raise ParseError("JSON parse error - the body is nested too deeply.") from exc
        return _checked(data)


class FormParser(parsers.FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if len(data) == 1 and next(iter(data)).lstrip().startswith(("{", "[")):
            # A JSON body sent as a form (what `curl -d` does): its fields would all be "required".
            raise UnsupportedMediaType(
                media_type,
                detail="The body is JSON but was sent as a form (application/x-www-form-urlencoded, as curl -d "
                "sends it): send it with the header Content-Type: application/json.",
            )
        _checked({key: data.getlist(key) for key in data})
        return data


class MultiPartParser(parsers.MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        result = super().parse(stream, media_type, parser_context)
        _checked({key: result.data.getlist(key) for key in result.data})
        _checked({key: [upload.name for upload in result.files.getlist(key)] for key in result.files})
        return result


class JSONLinesParser(parsers.BaseParser):
    """A JSON Lines body (an export being imported), handed to the view as its text; each line is checked there,
    so that an error can name its line."""

    media_type = "application/x-ndjson"

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return stream.read().decode("utf-8") if stream else ""
        except UnicodeDecodeError as exc:
            raise ParseError(f"JSON Lines must be UTF-8: {exc}") from exc
