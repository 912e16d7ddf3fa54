"""Shell lines of notebooks written on Kaggle or Colab (no kernel): their paths pointed at the
run's folders, or the lines muted with the reason; proposals give the user's lines back."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.colab_lines import mute_colab
from mlestar_jupyter.agent.data_paths import note_for, point_to_input, restore_paths
from mlestar_jupyter.agent.network_lines import NO_DOWNLOAD, NO_FETCHED, NO_INSTALL, fetched_by
from mlestar_jupyter.agent.shell_lines import NO_CD, NO_CD_BACK, NO_CHANGE, NO_COPY, NO_SHELL
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb


@pytest.mark.parametrize(
    ("written", "now"),
    [
        # a copy of the task's data: read from ./input
        ("!cp /content/drive/MyDrive/data/train.csv .", "!cp input/train.csv ."),
        ("!cp /kaggle/input/breast-cancer/train.csv /kaggle/working/", "!cp input/train.csv ./"),
        ("!cp -r /kaggle/input/breast-cancer/* data/", "!cp -r input/* data/"),
        ('!cp "/content/gdrive/My Drive/bc/test.csv" .', '!cp "input/test.csv" .'),
        ("!cp /content/gdrive/My\\ Drive/bc/test.csv .", "!cp input/test.csv ."),
        # Kaggle's working and scratch folders: the work folder's
        ("!mkdir -p /kaggle/working/models", "!mkdir -p ./models"),
        ("!ls /kaggle/input", "!ls input"),
        ("!ls ../input", "!ls input"),
        ("files = !ls /kaggle/input/breast-cancer", "files = !ls input"),
        ("%cd /kaggle/working", "%cd ./"),
        (
            "!rm -rf /kaggle/working/models && mkdir /kaggle/working/models",
            "!rm -rf ./models && mkdir ./models",
        ),
        ("!python train.py --out=/kaggle/working/m.pkl", "!python train.py --out=./m.pkl"),
        ("if FAST:\n    !ls /kaggle/input", "if FAST:\n    !ls input"),
        # the run's own folders, and paths other than Kaggle's or Colab's, are left alone
        ("!ls input", "!ls input"),
        (
            "!mkdir -p data && unzip -q archive.zip -d data",
            "!mkdir -p data && unzip -q archive.zip -d data",
        ),
        ("!nvidia-smi > /dev/null", "!nvidia-smi > /dev/null"),
    ],
)
def test_shell_lines_name_the_runs_folders(written: str, now: str) -> None:
    out, changes = point_to_input(_nb(written), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == now
    # a quoted path is a string literal too, pointed at input/ as in Python
    assert {c.kind for c in changes} <= {"shell", "path"} and len(changes) == (written != now)
    assert restore_paths(now, "b1", changes) == written  # what the user's own cell gets back


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        # unpacking the archive the task's data came from: the data is already in ./input
        ("!unzip -q /content/drive/MyDrive/comp.zip -d data", NO_COPY),
        ("!tar -xzf /content/drive/MyDrive/bc.tar.gz -C /kaggle/working", NO_COPY),
        ("!cp /content/drive/MyDrive/kaggle.json ~/.kaggle/", NO_COPY),
        ("!cp submission.csv /content/drive/MyDrive/", NO_SHELL),  # a write outside the run
        ("%cd /kaggle/input/breast-cancer", NO_CD),  # reads of input/... would break
        ("%cd /content/drive/MyDrive/project", NO_CD),
        ("os.chdir('/content/drive/MyDrive/Colab Notebooks/bc')", NO_CD),
        ("!rm -rf /kaggle/working/*", NO_CHANGE),  # ./input with it
        ("!mv /kaggle/input/breast-cancer/train.csv .", NO_CHANGE),
        ("!ls /content/drive/MyDrive", NO_SHELL),
    ],
)
def test_shell_lines_with_no_place_in_a_run_are_muted_with_the_reason(
    written: str, reason: str
) -> None:
    out, changes = point_to_input(_nb(f"{written}\nx = 1"), BREAST_CANCER / "input")
    src = out.code_blocks[0].source
    assert src == f"pass  # {written}{reason}\nx = 1"
    compile(src, "cell", "exec")
    assert restore_paths(src, "b1", changes) == f"{written}\nx = 1"


def test_chdir_into_the_data_is_not_run_and_into_the_working_folder_is() -> None:
    """``os.chdir('/kaggle/input/bc')`` was pointed at ``input``, and the reads pointed at
    ``input/...`` then looked in ``input/input``: the run stays in its work folder."""
    cell = "os.chdir('/kaggle/input/breast-cancer')\ntrain = pd.read_csv('train.csv')"
    out, changes = point_to_input(_nb(cell), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == (
        f"pass  # os.chdir('input'){NO_CD}\ntrain = pd.read_csv('input/train.csv')"
    )
    assert restore_paths(out.code_blocks[0].source, "b1", changes) == cell
    out, _ = point_to_input(_nb("os.chdir('/kaggle/working')"), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == "os.chdir('./')"


@pytest.mark.parametrize("into", ["%cd data", "os.chdir('data')"])
def test_a_move_into_the_data_folder_beside_the_notebook_and_back(into: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Hunt, session 24: ``%cd data`` (or ``os.chdir('data')``) into the folder beside the
    notebook, reads of bare names, a write one folder up (beside the notebook), ``%cd ..``.  The run failed
    the chdir (the notebook was dropped), or moved up out of its work folder with ``%cd ..`` and
    lost the submission.  The moves are muted, and the write lands in the work folder."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "train.csv").write_text("a,y\n1,0\n")
    back = "%cd .." if into.startswith("%") else "os.chdir('..')"
    cells = [into, "train = pd.read_csv('train.csv')", f"sub.to_csv('../submission.csv')\n{back}"]
    nb = _nb(*cells)
    out, changes = point_to_input(nb, data)
    first, read, last = (b.source for b in out.code_blocks)
    assert first == f"pass  # {into}{NO_CD}"
    assert read == "train = pd.read_csv('input/train.csv')"
    assert last.split("\n") == ["sub.to_csv('submission.csv')", f"pass  # {back}{NO_CD_BACK}"]
    for block, cell in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(block.source, block.id, changes) == cell
    # a folder of that name that is not the data is left alone
    out, _ = point_to_input(_nb("%cd models\n%cd .."), data)
    assert out.code_blocks[0].source == "%cd models\n%cd .."


def test_a_muted_assignment_keeps_its_name() -> None:
    out, _ = point_to_input(
        _nb("files = !ls /content/drive/MyDrive\nn = len(files)"), BREAST_CANCER / "input"
    )
    assert out.code_blocks[0].source.startswith("files = []  # files = !ls /content/drive/MyDrive")


def test_a_bash_cell_is_rewritten_line_by_line_and_muted_with_the_shells_no_op() -> None:
    """A ``%%bash`` cell stops the notebook at its first failing last line; its lines are
    rewritten or made ``:``, continued lines as a whole, comments left alone."""
    cell = (
        "%%bash\n"
        "# fetch the data\n"
        "mkdir -p /kaggle/working/data\n"
        "unzip -q /content/drive/MyDrive/comp.zip \\\n"
        "    -d /kaggle/working/data\n"
        "if [ -d /kaggle/temp ]; then ls /kaggle/temp; fi\n"
        "cp /kaggle/input/breast-cancer/*.csv /kaggle/working/data/"
    )
    out, changes = point_to_input(_nb(cell), BREAST_CANCER / "input")
    assert out.code_blocks[0].source.split("\n") == [
        "%%bash",
        "mkdir -p kaggle_temp  # MLE-STAR: Kaggle's /kaggle/temp is ./kaggle_temp in a run",
        "# fetch the data",
        "mkdir -p ./data",
        f": # unzip -q /content/drive/MyDrive/comp.zip \\{NO_COPY}",
        "# -d /kaggle/working/data",
        "if [ -d ./kaggle_temp ]; then ls ./kaggle_temp; fi",
        "cp input/*.csv ./data/",
    ]
    assert restore_paths(out.code_blocks[0].source, "b1", changes) == cell
    assert [c.kind for c in changes] == ["shell"] * 4 + ["temp"]


def test_writefile_writes_in_the_work_folder() -> None:
    cell = "%%writefile /kaggle/working/utils.py\nTRAIN = '/kaggle/input/breast-cancer/train.csv'"
    out, changes = point_to_input(_nb(cell), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == "%%writefile ./utils.py\nTRAIN = 'input/train.csv'"
    assert restore_paths(out.code_blocks[0].source, "b1", changes) == cell


def test_a_colab_notebook_copying_from_drive_is_prepared_and_noted() -> None:
    """A Colab notebook mounts its Drive, unpacks the competition's archive and copies a file:
    in a run the mount and the unpacking are not run, the copy reads from ./input, and the note
    says so; the user's cells get their lines back."""
    cells = (
        "from google.colab import drive\ndrive.mount('/content/drive')\n"
        "!unzip -q /content/drive/MyDrive/comp.zip -d data\n"
        "!cp /content/drive/MyDrive/comp/test.csv .",
        "import pandas as pd\ntrain = pd.read_csv('data/train.csv')\ntest = pd.read_csv('test.csv')",
        "from sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.model_selection import train_test_split\n"
        "X, y = train.drop(columns=['id', 'diagnosis']), train['diagnosis']\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(X, y)\n"
        "model = RandomForestClassifier().fit(X_tr, y_tr)",
    )
    prepared = prepare_user_notebook(_nb(*cells), load_task(BREAST_CANCER))
    assert prepared.understood
    fetch = prepared.notebook.block("b1").source
    assert f"pass  # !unzip -q /content/drive/MyDrive/comp.zip -d data{NO_COPY}" in fetch
    assert "\n!cp input/test.csv ." in fetch
    assert "pd.read_csv('input/train.csv')" in prepared.notebook.block("b2").source
    note = note_for(prepared.data_paths)
    assert "`!cp /content/drive/MyDrive/comp/test.csv .` → `!cp input/test.csv .`" in note
    assert "These shell lines are not run" in note and "`!unzip -q" in note
    for bid, cell in zip(("b1", "b2"), cells, strict=False):
        source = prepared.notebook.block(bid).source
        assert restore_paths(source, bid, prepared.data_paths) == cell


def test_colab_lines_and_shell_lines_come_back_together() -> None:
    cell = (
        "from google.colab import drive\ndrive.mount('/content/drive')\n!ls /content/drive/MyDrive"
    )
    moved, paths = point_to_input(_nb(cell), BREAST_CANCER / "input")
    out, colab = mute_colab(moved)
    assert out.code_blocks[0].source.count("pass  # ") == 3
    assert restore_paths(out.code_blocks[0].source, "b1", paths + colab) == cell


@pytest.mark.parametrize(
    "written",
    [
        "!kaggle competitions download -c titanic",
        "!kaggle datasets download -d yasserh/titanic-dataset -p /kaggle/working --unzip",
        "!wget https://raw.githubusercontent.com/datasciencedojo/datasets/master/titanic.csv",
        "!wget -q https://x.org/w.bin -O /kaggle/working/w.bin 2>&1",
        "!curl -O https://archive.ics.uci.edu/ml/machine-learning-databases/wine/wine.data",
        "!curl -sSL https://x.org/get-data.sh | bash",
        "!gdown --id 1Z8cgqLS2rQqhYKX2gNR9s3wzzxgaRXYl",
        "!git clone https://github.com/ultralytics/yolov5",
    ],
)
def test_downloads_are_not_run_without_a_network(written: str) -> None:
    """A run's kernels have no network: a download printed an error (a ``%%bash`` cell stopped)
    and the notebook went on without the file; it is muted with the reason, kind "shell", and
    given back in proposals."""
    out, changes = point_to_input(_nb(f"{written}\nx = 1"), BREAST_CANCER / "input")
    src = out.code_blocks[0].source
    assert src == f"pass  # {written}{NO_DOWNLOAD}\nx = 1"
    assert [c.kind for c in changes] == ["shell"]
    assert restore_paths(src, "b1", changes) == f"{written}\nx = 1"
    assert "These shell lines are not run" in note_for(changes)


def test_downloads_run_where_the_run_has_a_network() -> None:
    written = "!wget -q https://x.org/w.bin -O /kaggle/working/w.bin 2>&1"
    out, _ = point_to_input(_nb(written), BREAST_CANCER / "input", network=True)
    assert out.code_blocks[0].source == "!wget -q https://x.org/w.bin -O ./w.bin 2>&1"
    bash = "%%bash\npip install -q lightgbm\nkaggle competitions download -c titanic"
    out, changes = point_to_input(_nb(bash), BREAST_CANCER / "input", network=True)
    assert out.code_blocks[0].source == bash and not changes


def test_a_kaggle_api_notebook_fetching_its_data_in_a_bash_cell() -> None:
    """The Kaggle API's recipe in a ``%%bash`` cell stopped the notebook (``kaggle: command not
    found``, then ``unzip`` of an archive that never came, exit 9): the install, the download
    and the commands using what it would fetch, in that cell or a later one, are the shell's
    no-op with the reason; the reads are pointed at ./input."""
    cells = (
        "%%bash\n"
        "pip install -q kaggle\n"
        "mkdir -p ~/.kaggle && cp kaggle.json ~/.kaggle/\n"
        "kaggle competitions download -c breast-cancer\n"
        "unzip -o breast-cancer.zip \\\n"
        "    -d data",
        "!rm breast-cancer.zip\n!unzip -q other.zip -d data",
        "import pandas as pd\ntrain = pd.read_csv('data/train.csv')",
    )
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    bash, later, read = (b.source for b in out.code_blocks)
    assert bash.split("\n") == [
        "%%bash",
        f": # pip install -q kaggle{NO_INSTALL}",
        "mkdir -p ~/.kaggle && cp kaggle.json ~/.kaggle/",  # fails, not last: the cell goes on
        f": # kaggle competitions download -c breast-cancer{NO_DOWNLOAD}",
        f": # unzip -o breast-cancer.zip \\{NO_FETCHED}",
        "# -d data",
    ]
    assert later == f"pass  # !rm breast-cancer.zip{NO_FETCHED}\n!unzip -q other.zip -d data"
    assert read.endswith("pd.read_csv('input/train.csv')")
    assert [c.kind for c in changes if c.block_id == "b1"] == ["install", "shell", "shell"]
    for b, cell in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(b.source, b.id, changes) == cell
    note = note_for(changes)
    assert "`pip install -q kaggle`" in note and "`kaggle competitions download" in note


@pytest.mark.parametrize(
    ("words", "made"),
    [
        ("kaggle competitions download -c titanic -p data", {"titanic.zip"}),
        ("kaggle competitions download titanic", {"titanic.zip"}),
        ("kaggle datasets download -d owner/titanic-dataset", {"titanic-dataset.zip"}),
        ("wget -q https://x.org/a/data.zip?dl=1", {"data.zip"}),
        ("wget https://x.org/a/data.zip -O /kaggle/working/d.zip", {"d.zip"}),
        ("curl -L -o d.tgz https://x.org/a.tgz", {"d.tgz"}),
        ("curl -O https://x.org/a.tgz", {"a.tgz"}),
        ("curl https://x.org/a.tgz", set()),  # to its output: no file
        ("gdown --id 1AbC -O weights.pth", {"weights.pth"}),
        ("git clone --depth 1 https://github.com/x/repo.git", {"repo"}),
        ("git clone https://github.com/x/repo.git src", {"src"}),
        ("unzip titanic.zip", set()),  # no download
    ],
)
def test_what_a_download_would_make(words: str, made: set[str]) -> None:
    assert fetched_by(words.split()) == made


def test_only_commands_reading_what_a_download_would_fetch_are_muted_with_it() -> None:
    cells = (
        "!git clone https://github.com/someone/data",
        "!mkdir -p data\n!cp data/train.py .\n!unzip -q other.zip -d data\n%cd data",
    )
    out, _ = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert out.code_blocks[1].source.split("\n") == [
        "!mkdir -p data",  # makes it: runs
        f"pass  # !cp data/train.py .{NO_FETCHED}",
        "!unzip -q other.zip -d data",  # writes into it: runs
        f"pass  # %cd data{NO_FETCHED}",
    ]


@pytest.mark.parametrize(
    ("written", "now"),
    [
        # a course notebook's helpers beside it: in a run they lie in ./input (hunt, session 23:
        # "File `'helper.py'` not found", the notebook never ran)
        ("%run helper.py", "%run input/helper.py"),
        ("%run -i ../src/helper.py", "%run -i input/helper.py"),
        ('%run "helper.py" --fast', '%run "input/helper.py" --fast'),
        ("%load helper.py", "%load input/helper.py"),
        ("%run input/helper.py", "%run input/helper.py"),  # already there
        ("%run other.py", "%run other.py"),  # no such file of the task's
    ],
)
def test_a_file_the_notebook_runs_is_run_from_input(tmp_path, written: str, now: str) -> None:  # type: ignore[no-untyped-def]
    from .notebooks import task_with

    root = task_with(tmp_path, {"helper.py": "DROP = ['id']\n"})
    out, changes = point_to_input(_nb(written), root / "input")
    assert out.code_blocks[0].source == now
    assert len(changes) == (written != now)
    assert restore_paths(now, "b1", changes) == written
