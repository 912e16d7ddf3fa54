"""Saved pages to text: what a browser-saved HTML page keeps and drops; sections of each format."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.importer import TaskImportError
from mlestar_jupyter.importer.pages import html_to_text, read_page, split_sections

from .competitions import PAGES


def test_kaggle_page_drops_scripts_styles_nav_header_footer() -> None:
    page = read_page(PAGES / "spaceship_kaggle.html")
    assert page.title == "Spaceship Rescue | Kaggle"
    for gone in (
        "defaultMetric",
        "site-nav",
        "Learn: log loss",
        "cookies",
        "Leaderboard (RMSE)",
        "Kaggle Inc",
        "trackPageView",
        "1,203 teams",
    ):
        assert gone not in page.text, gone
    headings = [s.heading for s in page.sections]
    assert headings[:3] == ["Overview", "Evaluation", "Submission File"]
    assert "percentage of passengers you correctly predict" in page.text
    assert "- **train.csv**" not in page.text and "- train.csv - Personal records" in page.text
    assert "```\nPassengerId,Transported\n0013_01,False" in page.text


def test_mathjax_formula_is_kept_and_other_scripts_are_not() -> None:
    title, text = html_to_text(
        '<title>t</title><script>var a = "rmse";</script><p>Score:</p>'
        '<script type="math/tex; mode=display">\\frac{1}{n}\\sum |y_i - p_i|</script>'
        '<div class="navbar">Home</div><div hidden>secret</div><p>end</p>'
    )
    assert title == "t"
    assert "$\\frac{1}{n}\\sum |y_i - p_i|$" in text
    assert "rmse" not in text and "Home" not in text and "secret" not in text and "end" in text


def test_sections_of_markdown_setext_and_all_caps_text() -> None:
    md = read_page(PAGES / "review_sentiment.md")
    assert [s.heading for s in md.sections][:3] == [
        "Product Review Sentiment",
        "Overview",
        "Scoring",
    ]
    txt = read_page(PAGES / "telco_churn.txt")
    assert [s.heading for s in txt.sections] == [
        "TELCO CUSTOMER RETENTION CHALLENGE",
        "Overview",
        "Evaluation",
        "Submission Format",
        "Data",
        "Rules",
    ]
    assert split_sections("no headings at all\n")[0].heading == ""


def test_missing_or_empty_page_is_an_import_error(tmp_path: Path) -> None:
    with pytest.raises(TaskImportError, match="source: .*nope.html is not a file"):
        read_page(tmp_path / "nope.html")
    (tmp_path / "empty.html").write_text("<html><script>x()</script></html>")
    with pytest.raises(TaskImportError, match="holds no text"):
        read_page(tmp_path / "empty.html")


def test_mhtml_single_file_page(tmp_path: Path) -> None:
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    msg = MIMEMultipart("related")
    html = (PAGES / "spaceship_kaggle.html").read_text()
    msg.attach(MIMEText(html, "html", "utf-8"))  # base64 inside, as browsers write it
    (tmp_path / "page.mhtml").write_bytes(msg.as_bytes())
    page = read_page(tmp_path / "page.mhtml")
    assert page.title == "Spaceship Rescue | Kaggle"
    assert "percentage of passengers you correctly predict" in page.text
    assert "defaultMetric" not in page.text
