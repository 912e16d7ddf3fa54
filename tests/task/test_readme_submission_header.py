"""A task folder with no sample submission whose README names the submission's header in prose
("Submit a CSV with header `image,label`", "must contain the columns `PassengerId` and
`Survived`", an example file in a code block): the submission has that header (was: `id,label`
for files to predict, and a table whose training file has two columns its test file lacks was
refused for want of a 'Target:' line).  Prose that names columns of something else is ignored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.prose_header import submission_header


def _images(root: Path, readme: str) -> Path:
    """``train/<breed>/*.png`` and ``test/*.png`` beside a README, as people publish them."""
    for k in range(12):
        path = root / "train" / ["tabby", "siamese"][k % 2] / f"{k}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        pixels = (np.arange(64).reshape(8, 8) * (k % 4 + 1)).astype(np.uint8)
        Image.fromarray(pixels, "L").save(path)
    (root / "test").mkdir()
    for k in range(4):
        Image.fromarray(np.full((8, 8), k * 40, np.uint8), "L").save(root / "test" / f"t{k}.png")
    (root / "README.md").write_text(readme)
    return root


@pytest.mark.parametrize(
    ("readme", "header"),
    [
        (
            "# Cats\n\nClassify the cat photos in `test/`.\n\n"
            "Submit a CSV with header `image,label`, one row per test image.\n\n"
            "## Evaluation\n\nAccuracy.\n",
            ("image", "label"),
        ),
        (
            "# Cat breeds\n\nTrain on the folders in train/ (one per breed).\n\n"
            "Your predictions file should have two columns: `filename` and `breed`.\n"
            "We score it by accuracy.\n",
            ("filename", "breed"),
        ),
        (
            "# Cats\n\nPredict the breed of each image in test/. Metric: accuracy\n\n"
            "## Submission format\n\nThe file should look like this:\n\n"
            "```\nfile,breed\nt0,tabby\nt1,siamese\n```\n",
            ("file", "breed"),
        ),
    ],
)
def test_the_readme_says_the_header_of_a_media_task(
    tmp_path: Path, readme: str, header: tuple[str, str]
) -> None:
    task = load_task(_images(tmp_path / "cats", readme))
    assert (task.id_col, task.target_cols) == (header[0], (header[1],))
    assert any(f"the submission is '{','.join(header)}'" in n for n in task.notices)


def test_the_readme_names_the_columns_of_a_table_task(tmp_path: Path) -> None:
    """Titanic as a folder: the training table has two columns the test table lacks
    (``Survived`` and ``Cabin_known``), the README names the submission's two."""
    root = tmp_path / "titanic"
    root.mkdir()
    rs = np.random.RandomState(0)
    train = pd.DataFrame(
        {
            "PassengerId": range(1, 41),
            "Pclass": rs.randint(1, 4, 40),
            "Age": rs.randint(1, 80, 40),
            "Cabin_known": rs.randint(0, 2, 40),
            "Survived": rs.randint(0, 2, 40),
        }
    )
    train.to_csv(root / "train.csv", index=False)
    test = train.drop(columns=["Survived", "Cabin_known"]).assign(PassengerId=range(41, 81))
    test.to_csv(root / "test.csv", index=False)
    (root / "README.md").write_text(
        "# Titanic\n\nPredict who survived. Evaluation: accuracy.\n\n"
        "The submission file must contain the columns `PassengerId` and `Survived`, "
        "one row per passenger of test.csv.\n"
    )
    task = load_task(root)
    assert (task.id_col, task.target_cols) == ("PassengerId", ("Survived",))


@pytest.mark.parametrize(
    "text",
    [
        # the columns of the training data, not of the submission
        "The training file has columns `id`, `text` and `label`; submit your predictions.",
        # no list: one column named
        "Submit a CSV with one `label` per test image.",
        # two different headers: which one?
        "Submit a CSV with header `id,label`.\n\nThe submission file has columns `image` and `y`.",
        # words, not names
        "The submission must have columns for each of the test files.",
    ],
)
def test_prose_that_names_no_clear_header_is_ignored(text: str) -> None:
    assert submission_header(text) is None


def test_the_phrasings_people_write() -> None:
    assert submission_header("Submit a CSV with header `image, label`.") == ("image", "label")
    assert submission_header("The submission file should contain two columns, id and label.") == (
        "id",
        "label",
    )
    assert submission_header(
        "Submission: a CSV with the columns `row_id`, `target_a` and `target_b`."
    ) == ("row_id", "target_a", "target_b")


def test_a_run_hands_in_the_header_the_readme_names(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    """The run writes ``image,label`` for the test files (was: ``id,label``)."""
    root = _images(
        tmp_path / "cats",
        "# Cats\n\nSubmit a CSV with header `image,label`, one row per test image.\n\n"
        "## Evaluation\n\nAccuracy.\n",
    )
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["image", "label"] and sorted(sub["image"]) == [
        f"t{k}" for k in range(4)
    ]
