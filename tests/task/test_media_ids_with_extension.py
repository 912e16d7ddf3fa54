"""An outsider's image folder (hunt, session 31): sklearn's digits as ``train/img1000.png`` ...
and ``test/img1300.png`` ..., ``labels.csv`` (``id,label``, the file names), no sample
submission, and a README saying the submission's id is "the image file name (e.g.
img1003.png)".  The run handed in the files' stems (``img1300``), which the author's grader does
not know: every id missing.  The ids now follow what the README shows (a file name given as an
example, an example row, "with its extension"); without a word of it they stay the stems.  The
folder's ``labels.csv`` beside a ``train/`` folder was not read either ("no training labels")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from scipy.io import wavfile
from sklearn.datasets import load_digits

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.render import RenderContext, render_cells
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_notes
from mlestar_jupyter.task.prose_header import ids_with_extension

HEAD = (
    "# Handwritten digits\n\n`train/` holds the training images and `labels.csv` their labels "
    "(the image file name and the digit). `test/` holds the images to classify.\n\n"
    "Metric: accuracy\n\n"
)
SAID = {
    "example name": "Submission: a CSV with header `id,label`: id is the image file name (e.g. "
    "img1003.png), label the predicted digit.\n",
    "example row": "## Submission\n\nOne row per test image, header `id,label`:\n\n```\nid,label\n"
    "img1003.png,7\nimg1004.png,1\n```\n",
    "in words": "Submission: a CSV with header `id,label`; id is the test file's name including "
    "the extension.\n",
    "nothing": "Submission: a CSV with header `id,label`, one row per test image.\n",
    "stem row": "The submission file:\n\n```\nid,label\nimg1003,7\n```\n",
    "without": "Submission: a CSV with header `id,label` (id = the file name without `.png`).\n",
}
KEEPS = {"example name", "example row", "in words"}


def _digits(root: Path, said: str) -> pd.DataFrame:
    """The folder in ``root`` (answers in ``answers/<name>/answers.csv`` beside it)."""
    digits = load_digits()
    (root / "train").mkdir(parents=True)
    (root / "test").mkdir()
    rows, answers = [], []
    for i in range(120):
        name, split = f"img{1000 + i}.png", "train" if i < 90 else "test"
        pixels = (digits.images[i] * 16).astype(np.uint8)
        Image.fromarray(pixels).save(root / split / name)
        (rows if split == "train" else answers).append((name, int(digits.target[i])))
    pd.DataFrame(rows, columns=["id", "label"]).to_csv(root / "labels.csv", index=False)
    (root / "README.md").write_text(HEAD + SAID[said])
    truth = pd.DataFrame(answers, columns=["id", "label"])
    (root.parent / "answers" / root.name).mkdir(parents=True)
    truth.to_csv(root.parent / "answers" / root.name / "answers.csv", index=False)
    return truth


def _test_ids(root: Path) -> list[str]:
    """The test ids the offline image notebook's load cell gives."""
    policy = OfflinePolicy(load_task(root), RunConfig())
    card = next(iter(policy.catalog.matching("image", "classification")))
    cells = {
        c.role: c.source
        for c in render_cells(policy.catalog, card, RenderContext(policy.task, policy.layout))
    }
    scope: dict[str, object] = {}
    exec(cells["setup"], scope)  # noqa: S102 - the notebook's own cells
    scope["INPUT"] = root
    exec(cells["load"], scope)  # noqa: S102
    return [str(i) for i in scope["test_ids"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("said", sorted(SAID))
def test_the_ids_follow_what_the_readme_shows(tmp_path: Path, said: str) -> None:
    truth = _digits(tmp_path / "digits", said)
    task = load_task(tmp_path / "digits")
    layout = inspect_task(task)
    assert layout.train_table == "labels.csv" and layout.label_col == "label"
    assert layout.test_media is not None and layout.test_media.folder == "test"
    keeps = said in KEEPS
    assert layout.ids_keep_extension is keeps
    ids = _test_ids(tmp_path / "digits")
    assert ids == (truth.id.tolist() if keeps else [i[: -len(".png")] for i in truth.id])
    told = [n for n in data_notes(task, layout) if "with their extension" in n]
    assert bool(told) is keeps
    if keeps:
        assert "img1090.png, not img1090" in told[0]


def test_the_grader_takes_the_readme_header_and_the_file_names(tmp_path: Path) -> None:
    """No sample submission: the grader reads the header the README names (it refused with
    'no sample_submission.csv') and wants the ids as the answers hold them."""
    truth = _digits(tmp_path / "digits", "example name")
    task = load_task(tmp_path / "digits")
    truth.assign(label=7).to_csv(tmp_path / "named.csv", index=False)
    report = grade_submission(task, tmp_path / "named.csv")
    assert report.valid_submission, report.invalid_reason
    assert report.score == pytest.approx(float((truth.label == 7).mean()))
    stems = truth.assign(id=truth.id.str[: -len(".png")], label=7)
    stems.to_csv(tmp_path / "stems.csv", index=False)
    report = grade_submission(task, tmp_path / "stems.csv")
    assert not report.valid_submission and "missing 30 ids" in (report.invalid_reason or "")


def test_recordings_named_in_an_example(tmp_path: Path) -> None:
    root = tmp_path / "calls"
    for split in ("train", "test"):
        (root / split).mkdir(parents=True)
    rs = np.random.RandomState(0)
    rows = []
    for k in range(12):
        split = "train" if k < 9 else "test"
        wavfile.write(
            root / split / f"rec{k:03d}.wav", 8000, (rs.randn(800) * 3000).astype(np.int16)
        )
        rows += [(f"rec{k:03d}.wav", k % 2)] if split == "train" else []
    pd.DataFrame(rows, columns=["file", "call"]).to_csv(root / "labels.csv", index=False)
    (root / "README.md").write_text(
        "# Calls\n\nDoes each recording in `test/` hold a call? Metric: ROC AUC.\n\n"
        "Submit `file,call`, e.g. `rec010.wav,0.8`: the recording's file name and the "
        "probability of a call.\n"
    )
    layout = inspect_task(load_task(root))
    assert layout.modality == "audio" and layout.ids_keep_extension


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Submit `rec,bird` (rec = file name without `.wav`).", False),  # hunt K's birds
        ("Submission: id is the file's stem.", False),
        ("`train/` holds img0001.png ... Submit a CSV `id,label`.", None),  # about training
        ("Submission: one row per file in test/*.png, columns id and label.", None),
        ("Submission: id is the file name, e.g. img1.png; or without the extension.", None),
    ],
)
def test_what_a_readme_says_of_the_ids(text: str, verdict: bool | None) -> None:
    assert ids_with_extension(text, (".png", ".wav"), "id") is verdict
