"""The text of a task's description file, also when it is a competition page saved as HTML.

Found by task folders of other authors (hunt O): a Kaggle competition's pages saved from the
browser (``overview.html``, ``description.html``) beside ``train.csv``/``test.csv``/the sample
submission were not read ("no description.md"), though they say what is predicted and how it
is scored.  :func:`description_text` gives such a page as the markdown-like text the
description readers know: headings as ``#`` lines (so "## Evaluation" opens the section the
metric is read from), code as backquoted words, scripts, styles and navigation left out.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

HTML_EXT = (".html", ".htm")
_SKIPPED = {"script", "style", "nav", "header", "footer", "noscript", "svg", "head"}
_BLOCKS = {"p", "div", "section", "article", "li", "tr", "br", "table", "ul", "ol", "pre", "h1"}
_HEADINGS = {"h1": "#", "h2": "##", "h3": "###", "h4": "####", "h5": "#####", "h6": "######"}


class _PageText(HTMLParser):
    """Collects the visible text of a page, one block per line, headings marked ``#``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open a block (a new line), a heading (``#``), code (a backquote) or a skipped part."""
        if tag in _SKIPPED:
            self._skipping += 1
        elif self._skipping:
            return
        elif tag in _HEADINGS:
            self.parts.append(f"\n\n{_HEADINGS[tag]} ")
        elif tag in _BLOCKS:
            self.parts.append("\n")
            self._pre += tag == "pre"
        elif tag == "code" and not self._pre:
            self.parts.append("`")

    def handle_endtag(self, tag: str) -> None:
        """Close what :meth:`handle_starttag` opened."""
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif self._skipping:
            return
        elif tag in _HEADINGS or tag in _BLOCKS:
            self.parts.append("\n")
            self._pre -= tag == "pre" and self._pre > 0
        elif tag == "code" and not self._pre:
            self.parts.append("`")

    def handle_data(self, data: str) -> None:
        """Keep visible text: as it is inside ``<pre>``, with its runs of spaces folded else."""
        if self._skipping:
            return
        self.parts.append(data if self._pre else " ".join(data.split(" ")).replace("\n", " "))


def html_as_text(html: str) -> str:
    """The visible text of the page ``html``, markdown-like (see the module's docstring)."""
    parser = _PageText()
    parser.feed(html)
    parser.close()
    lines = [
        " ".join(line.split()) if line.strip() else ""
        for line in "".join(parser.parts).splitlines()
    ]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip() + "\n"


def description_text(path: Path) -> str:
    """The text of the description file ``path``: as it is, or read out of its HTML."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return html_as_text(text) if path.name.lower().endswith(HTML_EXT) else text


__all__ = ["HTML_EXT", "description_text", "html_as_text"]
