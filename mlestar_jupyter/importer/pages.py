"""Saved competition pages as text: HTML (as a browser saves it), Markdown or plain text.

HTML is reduced to Markdown-like text with the standard library's ``html.parser``: headings
become ``#`` lines, list items ``- `` lines, table rows ``a | b``; scripts, styles, navigation,
headers, footers, sidebars and forms are dropped, but MathJax formulas (``<script
type="math/tex">``) are kept, since a metric is often only stated there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

from .errors import Problem, TaskImportError

HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
MHTML_SUFFIXES = {".mhtml", ".mht"}  # "save as single file": MIME around the HTML
SKIP_TAGS = {
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "aside",
    "noscript",
    "svg",
    "form",
    "button",
    "iframe",
    "template",
    "head",
    "select",
}
SKIP_CLASS_WORDS = {"nav", "navbar", "navigation", "sidebar", "footer", "menu", "cookie", "banner"}
VOID_TAGS = {"br", "img", "meta", "link", "input", "hr", "area", "base", "col", "source", "wbr"}
BLOCK_TAGS = {"p", "div", "section", "article", "main", "table", "ul", "ol", "pre", "blockquote"}
MATH_SCRIPT = re.compile(r"math/tex|math/asciimath|mathml", re.I)


@dataclass(frozen=True)
class Section:
    """A heading and the text under it (``heading`` is ``""`` for text before the first one)."""

    heading: str
    text: str


@dataclass(frozen=True)
class Page:
    """One saved page as text, with its title and its sections."""

    path: Path
    title: str
    text: str

    @property
    def sections(self) -> tuple[Section, ...]:
        """The page's text split at its headings, in page order."""
        return split_sections(self.text)


# --------------------------------------------------------------------------- reading
def read_page(path: str | Path) -> Page:
    """Read one saved page; the format is told by the suffix, else by a leading ``<``."""
    p = Path(path)
    if not p.is_file():
        raise TaskImportError(
            [Problem("source", f"{p} is not a file", "pass the saved page (.html, .md or .txt)")]
        )
    raw = _mhtml_html(p) if p.suffix.lower() in MHTML_SUFFIXES else None
    is_mhtml = raw is not None
    raw = raw if raw is not None else p.read_text(encoding="utf-8", errors="replace")
    is_html = (
        is_mhtml
        or p.suffix.lower() in HTML_SUFFIXES
        or raw.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))
    )
    if is_html:
        title, text = html_to_text(raw)
    else:
        text = raw.replace("\r\n", "\n")
        m = re.search(r"(?m)^#\s+(.+)$", text)
        title = m.group(1).strip() if m else ""
    text = _tidy(text)
    if not text.strip():
        raise TaskImportError(
            [Problem("source", f"{p} holds no text", "save the page again with its content")]
        )
    return Page(p, title or p.stem, text)


def _mhtml_html(path: Path) -> str:
    """The HTML part of an MHTML file (Chrome's "Webpage, single file")."""
    import email
    from email import policy

    msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
    for part in msg.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    raise TaskImportError(
        [Problem("source", f"{path} holds no HTML part", "save the page as HTML instead")]
    )


def read_pages(paths: list[Path]) -> list[Page]:
    """Every page, in order; at least one is needed."""
    if not paths:
        raise TaskImportError(
            [Problem("source", "no page given", "pass at least one saved competition page")]
        )
    return [read_page(p) for p in paths]


def html_to_text(html: str) -> tuple[str, str]:
    """(title, Markdown-like text) of an HTML document."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return parser.title.strip(), re.sub(r"\n[ \t]+", "\n", "".join(parser.out))


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.title = ""
        self._skip: list[str] = []  # open tags whose content is dropped
        self._math = False
        self._in_title = False
        self._in_pre = False
        self._cell = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "title":  # inside <head>, which is otherwise dropped
            self._in_title = True
            return
        if self._skip:
            if tag not in VOID_TAGS:
                self._skip.append(tag)
            return
        if tag == "script" and MATH_SCRIPT.search(a.get("type", "")):
            self._math = True
            self.out.append(" $")
            return
        words = set(re.split(r"[\s_-]+", (a.get("class", "") + " " + a.get("id", "")).lower()))
        if (
            tag in SKIP_TAGS
            or a.get("role") in ("navigation", "banner", "contentinfo")
            or (tag in ("div", "section", "ul") and words & SKIP_CLASS_WORDS)
            or "hidden" in a
            or a.get("aria-hidden") == "true"
        ):
            if tag not in VOID_TAGS:
                self._skip.append(tag)
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "tr":
            self.out.append("\n")
            self._cell = 0
        elif tag in ("td", "th"):
            self.out.append(" | " if self._cell else "")
            self._cell += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag == "pre":
            self._in_pre = True
            self.out.append("\n\n```\n")
        elif tag == "code" and not self._in_pre:
            self.out.append("`")
        elif tag in BLOCK_TAGS:
            self.out.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if self._skip:
            if tag == self._skip[-1]:
                self._skip.pop()
            elif tag in self._skip:  # unclosed children: close up to the matching tag
                del self._skip[self._skip.index(tag) :]
            return
        if tag == "script" and self._math:
            self._math = False
            self.out.append("$ ")
        elif re.fullmatch(r"h[1-6]", tag) or tag in BLOCK_TAGS - {"pre"}:
            self.out.append("\n\n")
        elif tag == "pre":
            self._in_pre = False
            self.out.append("\n```\n\n")
        elif tag == "code" and not self._in_pre:
            self.out.append("`")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._skip and not self._math:
            return
        if self._in_pre or self._math:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data))


# --------------------------------------------------------------------------- sections
_RULE = re.compile(r"\s*(=+|-+)\s*")


def split_sections(text: str) -> tuple[Section, ...]:
    """The text cut at Markdown headings (``# x``), underlined titles and ALL-CAPS title lines."""
    out: list[Section] = []
    heading, body = "", []
    lines = text.split("\n")
    skip_next = False
    for i, line in enumerate(lines):
        if skip_next:
            skip_next = False
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        m = re.match(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", line)
        title = m.group(1) if m else None
        if title is None and line.strip() and _RULE.fullmatch(nxt):
            title, skip_next = line.strip(), True
        if title is None and re.fullmatch(r"[A-Z][A-Z0-9 &/:-]{2,40}", line.strip()):
            title = line.strip().rstrip(":").title()
        if title is None:
            body.append(line)
            continue
        if heading or "\n".join(body).strip():
            out.append(Section(heading, "\n".join(body).strip()))
        heading, body = title.strip(), []
    out.append(Section(heading, "\n".join(body).strip()))
    return tuple(s for s in out if s.heading or s.text)


def _tidy(text: str) -> str:
    text = unescape(text).replace("\xa0", " ")
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
