"""Small real files of each supported type, made in the test itself."""

from __future__ import annotations

import io


def pdf_bytes(text: str) -> bytes:
    """A minimal one-page PDF whose text layer holds ``text``."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def docx_bytes(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


SAMPLES = {
    "notes.txt": b"Dana keeps three beehives in Porto.",
    "notes.md": b"# Bees\n\nDana keeps three beehives in Porto.",
    "notes.json": b'{"beekeeper": {"name": "Dana", "hives": 3, "city": "Porto"}}',
    "notes.csv": b"name,hives,city\nDana,3,Porto\n",
    "notes.html": b"<html><head><script>var x=1;</script></head><body><p>Dana keeps three beehives in Porto.</p>"
    b"</body></html>",
}


def sample_files() -> dict[str, bytes]:
    files = dict(SAMPLES)
    files["notes.pdf"] = pdf_bytes("Dana keeps three beehives in Porto.")
    files["notes.docx"] = docx_bytes("Dana keeps three beehives in Porto.")
    return files
