"""Lines only Colab runs (no kernel): muted with a comment, as installs are, and given back to
the user's cells in proposals; what is left alone."""

from __future__ import annotations

from mlestar_jupyter.agent.colab_lines import mute_colab
from mlestar_jupyter.agent.data_paths import note_for, point_to_input, restore_paths
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

COLAB = (
    "from google.colab import drive, files\ndrive.mount('/content/drive')",
    "%tensorflow_version 2.x\nimport pandas as pd\n"
    "train = pd.read_csv('/content/drive/MyDrive/kaggle/bc/train.csv')",
    "uploaded = files.upload()\nif True:\n    drive.mount(\n        '/content/drive',\n"
    "        force_remount=True,\n    )\nx = 1",
)


def test_colab_only_lines_are_not_run_and_come_back_in_proposals() -> None:
    """A Colab notebook mounting its Drive stopped at its first line (``No module named
    'google.colab'``) and the run told the user to install ``google``: its Colab-only lines are
    ``pass`` with the line as a comment, as installs are, and the user's cells get them back."""
    moved, paths = point_to_input(_nb(*COLAB), BREAST_CANCER / "input")
    out, colab = mute_colab(moved)
    changes = paths + colab
    mount, read, upload = (b.source for b in out.code_blocks)
    assert mount.startswith("pass  # from google.colab import drive, files  # MLE-STAR: not run")
    assert "\npass  # drive.mount('/content/drive')  # MLE-STAR" in mount
    assert read.startswith("pass  # %tensorflow_version 2.x") and "'input/train.csv'" in read
    assert upload.startswith("uploaded = {}  # uploaded = files.upload()")  # nothing uploaded
    assert "\n    pass  # drive.mount(  # MLE-STAR" in upload and upload.endswith("\nx = 1")
    for b, cell in zip(out.code_blocks, COLAB, strict=True):
        compile(b.source.replace("%tensorflow", "# %"), "cell", "exec")  # still Python
        assert restore_paths(b.source, b.id, changes) == cell
    assert {c.kind for c in changes} == {"colab", "path"}
    assert "Only Colab runs these lines" in note_for(changes)


def test_colab_lines_the_notebook_handles_are_left_alone() -> None:
    """An import under ``try:`` (the notebook's ``except ImportError`` handles it) is kept; a name
    the notebook binds itself is not Colab's, and its calls run."""
    guarded = (
        "try:\n    from google.colab import drive\n    IN_COLAB = True\n"
        "except ImportError:\n    IN_COLAB = False\nif IN_COLAB:\n    drive.mount('/content/drive')"
    )
    out, changes = mute_colab(_nb(guarded))
    assert out.code_blocks[0].source == guarded and not changes
    rebound = "from google.colab import files\nfiles = ['a.csv']\nfiles.append('b.csv')"
    out, changes = mute_colab(_nb(rebound))
    assert out.code_blocks[0].source.endswith("\nfiles = ['a.csv']\nfiles.append('b.csv')")
    assert [c.old for c in changes] == ["from google.colab import files"]


def test_a_colab_notebook_is_prepared_with_its_colab_lines_muted_and_noted() -> None:
    prepared = prepare_user_notebook(
        _nb(
            *COLAB[:2],
            "from sklearn.ensemble import RandomForestClassifier\n"
            "from sklearn.model_selection import train_test_split\n"
            "X, y = train.drop(columns=['id', 'diagnosis']), train['diagnosis']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y)\n"
            "model = RandomForestClassifier().fit(X_tr, y_tr)",
        ),
        load_task(BREAST_CANCER),
    )
    assert prepared.understood
    assert [c.kind for c in prepared.data_paths if c.kind != "fold"] == [
        "path", "colab", "colab", "colab"
    ]  # fmt: skip
    notes = [c.source for c in prepared.notebook.nb.cells if c.cell_type == "markdown"]
    assert any("Only Colab runs these lines" in n and "`drive.mount(" in n for n in notes)
    first = next(c for c in prepared.notebook.nb.cells if c.cell_type == "markdown")
    assert "Only Colab runs" in first.source  # above the first changed cell: the mount's
