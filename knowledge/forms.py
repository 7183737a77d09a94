"""Forms of the staff pages: the markdown editor, a chunk's text, and the multi-file upload."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.html import format_html

from kbsite.models import KnowledgeBase

from . import files, services
from .models import Chunk, Document


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented pattern); each is checked for type and size."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ",".join(services.UPLOAD_TYPES)}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        uploads = [single(d, initial) for d in data] if isinstance(data, list | tuple) else [single(data, initial)]
        errors = []
        for upload in uploads:
            try:
                services.upload_check(name=upload.name, size=upload.size)
            except services.DocumentRefused as exc:
                errors.append(str(exc))
        if errors:
            raise forms.ValidationError(errors)
        return uploads


class UploadForm(forms.Form):
    kb = forms.ModelChoiceField(
        queryset=KnowledgeBase.objects.filter(is_active=True), label="Knowledge base", empty_label=None
    )
    namespace = forms.CharField(max_length=200, initial="documents")
    files = MultipleFileField(
        help_text=f"One or more of: {', '.join(services.UPLOAD_TYPES)}; "
        f"at most {settings.MAX_UPLOAD_BYTES // (1024 * 1024)} MiB each."
    )

    def __init__(self, *args, kbs=None, **kwargs):
        super().__init__(*args, **kwargs)
        if kbs is not None:  # the knowledge bases the operator may upload to
            self.fields["kb"].queryset = kbs.filter(is_active=True)


class MarkdownDocumentForm(forms.ModelForm):
    """Edit a markdown document; saving writes the file in knowledge/ and re-indexes it (see the admin)."""

    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 30, "cols": 100, "style": "font-family: monospace"}),
        strip=False,
        help_text="Markdown. The first '# ' heading is the title. Saved as &lt;slug&gt;.md in the KB's knowledge "
        "folder.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._file_text = None  # the file as it is on disk, whose line endings and final newline an edit keeps
        if self.instance.pk:
            path = files.document_path(self.instance.kb, self.instance.slug)
            self.fields["content"].help_text = format_html(
                "Markdown. The first '# ' heading is the title. Saved to <code>{}</code>.", path
            )
            if path.is_file():
                self._file_text = path.read_bytes().decode("utf-8", errors="replace")

    class Meta:
        model = Document
        fields = ["kb", "slug", "content"]

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        try:
            files.slug_check(slug)
        except files.InvalidSlug as exc:
            raise forms.ValidationError(str(exc)) from exc
        if self.instance.pk and slug != self.instance.slug:
            raise forms.ValidationError("The slug names the file; create a new document to use another one.")
        return slug

    def clean_content(self):
        # A browser sends a textarea's lines ending in CRLF: the file keeps its own line endings, and its final
        # newline (a new file gets one).
        content = self.cleaned_data["content"].replace("\r\n", "\n")
        crlf = self._file_text is not None and "\r\n" in self._file_text
        final_newline = self._file_text is None or self._file_text.endswith("\n")
        if final_newline and content.strip() and not content.endswith("\n"):
            content += "\n"
        if crlf:
            content = content.replace("\n", "\r\n")
        if not content.strip():
            raise forms.ValidationError("The document is empty.")
        if len(content.encode()) > settings.MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"A document may have at most {settings.MAX_UPLOAD_BYTES} bytes.")
        return content

    def clean(self):
        data = super().clean()
        kb, slug = data.get("kb") or getattr(self.instance, "kb", None), data.get("slug")
        if kb and slug and not self.instance.pk:
            if Document.objects.holding_slug(kb, slug).exists():
                self.add_error("slug", f"{slug!r} is already the slug of an uploaded or archived document.")
        return data

    def validate_unique(self):
        pass  # an existing markdown slug is replaced (write-through), not a clash


class ChunkForm(forms.ModelForm):
    """Edit a chunk's text; saving puts it in place of the chunk's in its document, which is indexed again (screened
    and embedded, see the admin). The text is checked here: an edit that cannot be made is a form error."""

    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 20, "cols": 100}),
        strip=False,
        help_text="Saved into its document at this chunk's place; the document is then chunked, screened and "
        "embedded again (a secret or a prompt injection keeps the whole document from bots).",
    )

    class Meta:
        model = Chunk
        fields = ["text"]

    def clean_text(self):
        text = self.cleaned_data["text"]
        if "\r\n" not in self.instance.text:  # a browser sends a textarea's lines ending in CRLF
            text = text.replace("\r\n", "\n")
        if text == self.instance.text:
            return text
        try:
            content = services.chunk_spliced(chunk=self.instance, text=text)
        except services.DocumentRefused as exc:
            raise forms.ValidationError(str(exc)) from exc
        if len(content.encode()) > settings.MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"A document may have at most {settings.MAX_UPLOAD_BYTES} bytes.")
        return text
