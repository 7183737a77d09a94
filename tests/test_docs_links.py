"""Every link and image in README.md and docs/**/*.md leads somewhere: a relative target exists in the repository, an
#anchor into a markdown file names one of its headings (GitHub's slugs), and an http(s) link is well formed."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# A code span may run over a line break, not over a blank line.
CODE_SPAN = re.compile(r"(`+)(?:[^`\n]|\n(?![ \t]*\n))+?\1")
# [text](target "title") and ![alt](target); the text may hold one level of brackets and run over lines.
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:id|name)=\"([^\"]+)\"")


@dataclass(frozen=True)
class Link:
    page: Path
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}: {self.target}"


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lowercased, punctuation other than hyphens dropped, spaces to
    hyphens."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)  # a link or image: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())  # \w keeps letters, digits and "_", as GitHub does
    return text.replace(" ", "-")


def _without_fences(text: str) -> str:
    """The page with its fenced code blocks blanked (line breaks kept): a "# comment" there is no heading."""
    lines, fence = [], None
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            lines.append("")
        elif fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return "\n".join(lines)


@cache
def _prose(page: Path) -> str:
    """The page without fenced blocks and with its code spans blanked, so code that looks like a link is not taken
    for one."""
    prose = _without_fences(page.read_text(encoding="utf-8"))
    return CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors a markdown page offers: its headings' slugs (a repeated one numbered -1, -2, as GitHub does) and
    any HTML anchor."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _without_fences(page.read_text(encoding="utf-8")).split("\n"):
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(2))
            found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
        found.update(anchor.lower() for anchor in HTML_ANCHOR.findall(line))
    return frozenset(found)


def links(page: Path) -> list[Link]:
    """Every link, image, reference definition and autolink of a page, outside code."""
    prose = _prose(page)
    found = []
    for pattern in (INLINE_LINK, REFERENCE_DEFINITION, AUTOLINK):
        for match in pattern.finditer(prose):
            target = match.group(1)
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            found.append(Link(page, prose.count("\n", 0, match.start()) + 1, target))
    return found


HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?|[0-9a-f:.]*:[0-9a-f:.]*")


def _external_problem(target: str) -> str | None:
    parts = urlsplit(target)
    if parts.scheme == "mailto":
        return None if re.fullmatch(r"[^@\s]+@[^@\s]+", parts.path) else "not an e-mail address"
    if re.search(r"\s", target):
        return "white space in an address"
    try:
        parts.port  # noqa: B018 -- raises on a port that is not a number
    except ValueError:
        return "bad port"
    if not parts.hostname or not HOST.fullmatch(parts.hostname):
        return "no valid host"
    return None


def problem(link: Link) -> str | None:
    """Why a link leads nowhere, or None when it leads somewhere."""
    target = link.target
    if not target:
        return "empty target"
    scheme = urlsplit(target).scheme
    if scheme:
        if scheme not in {"http", "https", "mailto"}:
            return f"unexpected scheme {scheme!r}"
        return _external_problem(target)
    path_part, _, fragment = target.partition("#")
    path_part = unquote(path_part.split("?", 1)[0])
    if path_part.startswith("/"):
        destination = (ROOT / path_part.lstrip("/")).resolve()
    elif path_part:
        destination = (link.page.parent / path_part).resolve()
    else:
        destination = link.page
    if destination != ROOT and ROOT not in destination.parents:
        return "points outside the repository"
    if not destination.exists():
        return "no such file or folder"
    if _ignored_by_git(destination):
        return "the target is ignored by git: not in the repository"
    if fragment and destination.is_file() and destination.suffix.lower() == ".md":
        if unquote(fragment).lower() not in anchors(destination):
            return f"no heading of {destination.relative_to(ROOT)} makes the anchor #{fragment}"
    return None


@cache
def _ignored_by_git(path: Path) -> bool:
    if not shutil.which("git") or not (ROOT / ".git").exists():
        return False
    result = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", str(path)], capture_output=True, check=False)
    return result.returncode == 0


def test_the_readme_and_the_docs_pages_are_found():
    """The check reads the README and the docs pages, so an empty pass cannot hide a missing folder."""
    assert ROOT / "README.md" in PAGES
    assert len(PAGES) > 1
    assert links(ROOT / "README.md")


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_link_of_the_page_leads_somewhere(page):
    """Each link and image of the page: a relative target exists, its #anchor names a heading, an address is well
    formed."""
    dead = [f"{link} ({reason})" for link in links(page) if (reason := problem(link))]
    assert not dead, "dead links:\n" + "\n".join(dead)


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Faults, and what the product does", "faults-and-what-the-product-does"),
        ("The operators' console (the Django admin)", "the-operators-console-the-django-admin"),
        ("End users: per-user memory, export and erase", "end-users-per-user-memory-export-and-erase"),
        ("`make test` and `users_scale`", "make-test-and-users_scale"),
        ("[Linked](other.md) heading", "linked-heading"),
    ],
)
def test_headings_make_githubs_anchors(heading, slug):
    """A heading's anchor follows GitHub's rules: lowercase, punctuation but hyphens and underscores dropped, spaces
    to hyphens."""
    assert github_slug(heading) == slug


def test_a_page_offers_the_anchors_of_its_headings_only(tmp_path):
    """Headings outside code make anchors (code in a heading kept as text, a repeated heading numbered); a "#" line
    inside a fenced block makes none."""
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## `kbsite/`: the base\n\n```sh\n# not a heading\n```\n\n## Notes\n\n## Notes\n")
    assert anchors(page) == {"title", "kbsite-the-base", "notes", "notes-1"}


def test_a_dead_link_and_a_wrong_anchor_are_caught():
    """A link to a missing file, to a missing heading, or to a malformed address is reported."""
    readme = ROOT / "README.md"
    assert problem(Link(readme, 1, "docs/no-such-page.md")) == "no such file or folder"
    assert "anchor" in problem(Link(readme, 1, "README.md#no-such-heading"))
    assert problem(Link(readme, 1, "http://")) == "no valid host"
    assert problem(Link(readme, 1, "https://exa mple.com/")) == "white space in an address"
    assert problem(Link(readme, 1, "https://github.com/")) is None
