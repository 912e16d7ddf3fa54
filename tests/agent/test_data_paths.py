"""Data paths of notebooks written elsewhere pointed at ``./input`` (no kernel): Kaggle paths,
``../input``, a ``data/`` folder, Windows paths, bare names; what is left alone; the note; and
proposals that give the user's cells their own paths back."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent import user_notebook
from mlestar_jupyter.agent.data_paths import note_for, point_to_input, restore_paths
from mlestar_jupyter.agent.fold_scores import fold_mean_code
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.notebook.roles import analyze
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

ROOT = Path(__file__).parents[2]
OUTSIDERS = ROOT / "tests" / "files" / "outsider_notebooks"


@pytest.mark.parametrize(
    ("written", "now"),
    [
        ("pd.read_csv('/kaggle/input/breast-cancer/train.csv')", "pd.read_csv('input/train.csv')"),
        ('pd.read_csv("../input/test.csv")', 'pd.read_csv("input/test.csv")'),
        ("pd.read_csv('data/train.csv')", "pd.read_csv('input/train.csv')"),
        ("open(r'C:\\Users\\me\\data\\test.csv')", "open(r'input/test.csv')"),
        ("pd.read_csv( 'sample_submission.csv' )", "pd.read_csv( 'input/sample_submission.csv' )"),
        ("PATH = '/kaggle/input/bc/'", "PATH = 'input/'"),
        ("DATA = Path('../input')", "DATA = Path('input')"),
        # a file written at an absolute path of the author's machine: the work folder (Colab's
        # /content, which a run cannot write, lost the user's submission: hunt, session 22)
        (
            "sub.to_csv('/content/submission.csv', index=False)",
            "sub.to_csv('./submission.csv', index=False)",
        ),
        ("sub.to_csv(r'C:\\Users\\me\\out\\sub.csv')", "sub.to_csv(r'./sub.csv')"),
        ("plt.savefig('~/plots/roc.png')", "plt.savefig('./roc.png')"),
    ],
)
def test_paths_written_elsewhere_point_at_input(written: str, now: str) -> None:
    out, changes = point_to_input(_nb(written), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == now
    assert len(changes) == 1 and changes[0].block_id == "b1"
    assert restore_paths(now, "b1", changes) == written  # what the user's own cell gets back


@pytest.mark.parametrize(
    "left",
    [
        "pd.read_csv('input/train.csv')",  # already read from ./input
        "pd.read_csv('./input/train.csv')",
        "sub.to_csv('submission.csv', index=False)",  # an output: not in input/
        "train.to_csv('train.csv', index=False)",  # written: an output, even named like an input
        "plt.savefig('data/test.csv')",
        "np.save( 'train.csv', arr)",
        "pd.read_csv(os.path.join(PATH, 'train.csv'))",  # a bare name joined to its folder
        "pd.read_csv(PATH + 'train.csv')",
        "pd.read_csv(f'{PATH}/train.csv')",  # an f-string
        "url = 'https://example.com/data/train.csv'",
        "DATA = 'data/'",  # a folder of another name
        "!ls data",  # a shell line's own folder, not Kaggle's or Colab's (``test_shell_lines``)
        "pd.read_csv(f'data/{name}.csv')",  # an f-string whose folder is not input's
        "print('training done.')",
    ],
)
def test_what_is_left_alone(left: str) -> None:
    out, changes = point_to_input(_nb(left), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == left and not changes


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        (
            ("DATA = 'data/'", "train = pd.read_csv(DATA + 'train.csv')"),
            ("DATA = 'input/'", "train = pd.read_csv(DATA + 'train.csv')"),
        ),
        (
            (
                'DATA_DIR = "/home/ana/projects/cancer"',
                'df = pd.read_csv(os.path.join(DATA_DIR, "test.csv"))',
            ),
            ('DATA_DIR = "input"', 'df = pd.read_csv(os.path.join(DATA_DIR, "test.csv"))'),
        ),
        (
            ("ROOT = Path('~/datasets/bc')\nX = pd.read_csv(ROOT / 'train.csv')",),
            ("ROOT = Path('input')\nX = pd.read_csv(ROOT / 'train.csv')",),
        ),
        (
            (
                "base: str = r'D:\\kaggle\\bc\\'",
                "sub = pd.read_csv(f'{base}sample_submission.csv')",
            ),
            ("base: str = r'input/'", "sub = pd.read_csv(f'{base}sample_submission.csv')"),
        ),
        (
            ("files = ['train.csv', 'test.csv']\ndfs = [pd.read_csv(f) for f in files]",),
            (
                "files = ['input/train.csv', 'input/test.csv']\ndfs = [pd.read_csv(f) for f in files]",
            ),
        ),
        (
            ('paths = {"train": "train.csv", "test": "data/test.csv"}',),
            ('paths = {"train": "input/train.csv", "test": "input/test.csv"}',),
        ),
        (  # a keyword's default joined in an f-string
            ('def load(folder="data"):\n    return pd.read_csv(f"{folder}/train.csv")',),
            ('def load(folder="input"):\n    return pd.read_csv(f"{folder}/train.csv")',),
        ),
        (  # a folder below the working directory, its files named by pathlib's methods
            # (hunt, session 23: read from the work folder's data/, which a run has not)
            (
                "ROOT = Path.cwd()\nDATA = ROOT / 'data'\nOUT = ROOT / 'outputs'",
                "print(sorted(p.name for p in DATA.glob('*.csv')))\n"
                "train = pd.read_csv(DATA / 'train.csv')\ntest = pd.read_csv(DATA.joinpath('test.csv'))",
            ),
            (
                "ROOT = Path.cwd()\nDATA = ROOT / 'input'\nOUT = ROOT / 'outputs'",
                "print(sorted(p.name for p in DATA.glob('*.csv')))\n"
                "train = pd.read_csv(DATA / 'train.csv')\ntest = pd.read_csv(DATA.joinpath('test.csv'))",
            ),
        ),
        (
            ('DATA = Path.cwd() / "data"', 'files = glob.glob("*.csv")'),
            ('DATA = Path.cwd() / "data"', 'files = glob.glob("input/*.csv")'),
        ),
        (  # names in a dict joined to a folder variable later: the folder moves, not the names
            (
                "DATA_DIR = 'data'\nfiles = {'train': 'train.csv'}",
                "df = pd.read_csv(os.path.join(DATA_DIR, files['train']))",
            ),
            (
                "DATA_DIR = 'input'\nfiles = {'train': 'train.csv'}",
                "df = pd.read_csv(os.path.join(DATA_DIR, files['train']))",
            ),
        ),
        (  # a folder written in parts: the parts below the data folder go with it
            (
                "RAW_DIR = os.path.join('data', 'raw')",
                "df = pd.read_csv(os.path.join(RAW_DIR, 'train.csv'))",
            ),
            (
                "RAW_DIR = os.path.join('input', '.')",
                "df = pd.read_csv(os.path.join(RAW_DIR, 'train.csv'))",
            ),
        ),
    ],
)
def test_folders_assigned_to_a_name_and_names_in_lists_point_at_input(
    cells: tuple[str, ...], now: tuple[str, ...]
) -> None:
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == now
    for b, written in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(b.source, b.id, changes) == written


@pytest.mark.parametrize(
    "cells",
    [
        ("OUT = 'models/'", "joblib.dump(m, OUT + 'model.pkl')"),  # nothing of input/ joined
        ("DATA = 'data/'", "print(DATA)"),
        ("x = df['label'] + 'train.csv'",),  # not a folder that is assigned
        ("DATA = f'{HOME}/data'", "pd.read_csv(DATA + '/train.csv')"),  # an f-string folder
        ("sub = pd.read_csv(Path(HOME) / 'bc/train.csv')",),  # the tail of a joined path
        ("OUT = 'out/'\np = OUT + name",),  # a folder joined to a name, no names of input/
    ],
)
def test_folders_nothing_of_input_is_joined_to_are_left_alone(cells: tuple[str, ...]) -> None:
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == cells and not changes


def test_a_name_joined_to_something_is_a_folder_only_when_it_looks_like_one() -> None:
    written = ("MODEL = 'rf'\nname = MODEL + suffix", "files = ['train.csv']")
    out, changes = point_to_input(_nb(*written), BREAST_CANCER / "input")
    assert [b.source for b in out.code_blocks] == [written[0], "files = ['input/train.csv']"]
    assert [(c.old, c.new) for c in changes] == [("train.csv", "input/train.csv")]


def test_a_kaggle_notebook_is_prepared_with_a_note_and_its_own_cells_kept() -> None:
    task = load_task(BREAST_CANCER)
    written = SolutionNotebook.read(OUTSIDERS / "bc_kaggle_paths_lgb_train.ipynb")
    prepared = prepare_user_notebook(written, task)
    assert prepared.understood and prepared.added_block  # prints accuracy, not ROC AUC
    assert [(c.old, c.new) for c in prepared.data_paths] == [
        ("/kaggle/input/breast-cancer/train.csv", "input/train.csv"),
        ("/kaggle/input/breast-cancer/test.csv", "input/test.csv"),
    ]
    load = prepared.notebook.block("b2")
    assert "pd.read_csv('input/train.csv')" in load.source
    note = prepared.notebook.nb.cells[load.index - 1]
    assert note.cell_type == "markdown" and "Changed by MLE-STAR" in note.source
    assert "`/kaggle/input/breast-cancer/train.csv` → `input/train.csv`" in note.source
    assert restore_paths(load.source, "b2", prepared.data_paths) == written.block("b2").source
    assert written.block("b2").source.count("/kaggle/input") == 2  # the user's copy is untouched


def test_a_notebook_without_foreign_paths_is_unchanged() -> None:
    task = load_task(BREAST_CANCER)
    nb = SolutionNotebook.read(
        ROOT / "tests" / "files" / "user_notebooks" / "bc_random_forest.ipynb"
    )
    prepared = prepare_user_notebook(nb, task)
    assert not prepared.data_paths
    assert not any("Changed by MLE-STAR" in c.source for c in prepared.notebook.nb.cells)


def test_package_installs_are_not_run_without_network_and_come_back_in_proposals() -> None:
    cell = (
        "!pip install -q xgboost\nimport xgboost\nif True:\n    %pip install lightgbm==4.5\nx = 1"
    )
    out, changes = point_to_input(_nb(cell), BREAST_CANCER / "input")
    src = out.code_blocks[0].source
    assert src.startswith("pass  # !pip install -q xgboost  # MLE-STAR: not run")
    assert "\n    pass  # %pip install lightgbm==4.5" in src and "import xgboost\n" in src
    compile(src, "cell", "exec")  # still Python: the indented install became ``pass``
    assert [c.line for c in changes] == [True, True]
    assert restore_paths(src, "b1", changes) == cell
    same, none = point_to_input(_nb(cell), BREAST_CANCER / "input", network=True)
    assert same.code_blocks[0].source == cell and not none  # --allow-network: they run


def test_the_note_says_what_changed_and_why() -> None:
    task = load_task(BREAST_CANCER)
    written = SolutionNotebook.read(OUTSIDERS / "bc_parent_input_pip_cv.ipynb")
    prepared = prepare_user_notebook(written, task)
    first = prepared.notebook.code_blocks[1]  # after the seed cell
    note = prepared.notebook.nb.cells[first.index - 1].source
    assert "`../input/train.csv` → `input/train.csv`" in note
    assert "`!pip install -q xgboost`" in note and "no network" in note
    assert prepared.understood and prepared.added_block  # its CV score is not the task's metric


@pytest.mark.parametrize("metric", sorted(user_notebook._EXPR))
def test_the_added_validation_cell_is_python_of_this_version(metric: str) -> None:
    """The Kaggle notebook scores with its own ``accuracy_score`` call, so the added cell reuses
    the values that call takes; ROC AUC's ``multi_class="ovr"`` inside the printed f-string was
    a SyntaxError before Python 3.12, and the user's notebook then gave no score at all."""
    written = SolutionNotebook.read(OUTSIDERS / "bc_kaggle_paths_lgb_train.ipynb")
    analysis = analyze(written)
    found = user_notebook._validation_cell(
        analysis, written, user_notebook._EXPR[metric], metric in user_notebook._PROBA, True
    )
    assert found is not None and "from the values your metric uses" in found.how
    compile(found.code, "added cell", "exec")
    # the same metric scored at every pass of a loop over folds (``fold_scores``)
    folds = fold_mean_code(user_notebook._IMPORTS, user_notebook._EXPR[metric], "y_va", "p")
    compile(folds, "added cell", "exec")


def test_a_cell_whose_paths_were_pointed_at_input_is_still_the_users_to_refine() -> None:
    """Everything in one cell (load, split, ``ExtraTreesClassifier(...).fit``, score, write):
    after its ``data/`` paths are rewritten it is still a refinable cell of the user's, whose
    model statement is the part to refine (it was marked as MLE-STAR's and skipped, and the
    chained fit read as training only: the run had nothing to refine)."""
    from mlestar_jupyter.offline import user_code

    task = load_task(BREAST_CANCER)
    written = SolutionNotebook.read(OUTSIDERS / "bc_data_folder_one_cell.ipynb")
    prepared = prepare_user_notebook(written, task)
    parts = user_code.parts(prepared.notebook)
    model = next(p for p in parts if p.role == "model")
    assert model.block_id == "b1" and "ExtraTreesClassifier(" in model.source
    assert user_code.applicable(model) and len(user_code.ablations(model)) >= 1


@pytest.mark.parametrize(
    ("written", "now"),
    [
        ("files = glob.glob('/kaggle/input/*/*.csv')", "files = glob.glob('input/*.csv')"),
        ("files = glob('/kaggle/input/bc/*.csv')", "files = glob('input/*.csv')"),
        ('imgs = sorted(glob("../input/train/*.png"))', 'imgs = sorted(glob("input/train/*.png"))'),
        ("imgs = Path('.').glob('data/train/*.png')", "imgs = Path('.').glob('input/train/*.png')"),
        ("models = glob('models/*.pkl')", "models = glob('models/*.pkl')"),  # not input's
        ("mine = glob('input/*.csv')", "mine = glob('input/*.csv')"),  # readable already
        # a bare pattern, run beside the data: it points at input/ when it matches there
        ("files = glob.glob('*.csv')", "files = glob.glob('input/*.csv')"),
        ("plots = glob('*.svg')", "plots = glob('*.svg')"),  # nothing of input/ matches
    ],
)
def test_glob_patterns_whose_folder_is_input_point_there(
    written: str, now: str, tmp_path: Path
) -> None:
    """``glob.glob('/kaggle/input/*/*.csv')`` found nothing in a run (the pattern named no entry
    of input/, so it was left as written)."""
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "1.png").write_bytes(b"")
    (tmp_path / "train.csv").write_text("id\n")
    out, changes = point_to_input(_nb(written), tmp_path)
    assert out.code_blocks[0].source == now
    assert restore_paths(now, "b1", changes) == written


@pytest.mark.parametrize(
    ("written", "now"),
    [
        (
            'sub.to_csv("/kaggle/working/submission.csv", index=False)',
            'sub.to_csv("./submission.csv", index=False)',
        ),
        ("os.makedirs('/kaggle/working', exist_ok=True)", "os.makedirs('./', exist_ok=True)"),
        (
            "OUT = '/kaggle/working/'\nsub.to_csv(OUT + 'sub.csv')",
            "OUT = './'\nsub.to_csv(OUT + 'sub.csv')",
        ),
        (
            "pd.read_csv('/kaggle/working/train.csv')",
            "pd.read_csv('./train.csv')",
        ),  # written before
        # the folder part of an f-string, as a plain string's
        (
            'sub.to_csv(f"/kaggle/working/submission_{VERSION}.csv", index=False)',
            'sub.to_csv(f"./submission_{VERSION}.csv", index=False)',
        ),
        (
            "model.save(rf'/kaggle/working/models/fold{k}.h5')",
            "model.save(rf'./models/fold{k}.h5')",
        ),
        # a folder joined to the file name, the ways Kaggle notebooks join it
        (
            'OUT = "/kaggle/working/"; df.to_csv(OUT + "sub.csv")',
            'OUT = "./"; df.to_csv(OUT + "sub.csv")',
        ),
        (
            'sub.to_csv(os.path.join("/kaggle/working", "sub.csv"))',
            'sub.to_csv(os.path.join("./", "sub.csv"))',
        ),
        ('sub.to_csv(Path("/kaggle/working") / "sub.csv")', 'sub.to_csv(Path("./") / "sub.csv")'),
        ('sub.to_csv("/kaggle/working/" + f"sub_{v}.csv")', 'sub.to_csv("./" + f"sub_{v}.csv")'),
    ],
)
def test_kaggles_working_folder_is_the_work_folder(written: str, now: str) -> None:
    """A Kaggle notebook writing ``/kaggle/working/submission.csv`` failed ("Cannot save file
    into a non-existent directory"): Kaggle's working folder is the candidate's own work folder,
    in a write too, and the user's cell gets its path back."""
    out, changes = point_to_input(_nb(written), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == now
    assert restore_paths(now, "b1", changes) == written
    assert "Kaggle's working folder is the run's own work folder" in note_for(changes)


@pytest.mark.parametrize(
    ("written", "now"),
    [
        (
            'pd.read_csv(f"/kaggle/input/breast-cancer/train.csv")',
            'pd.read_csv(f"input/train.csv")',
        ),
        # the competition's folder as a placeholder: dropped, as a glob's ``*`` is
        ('pd.read_csv(f"/kaggle/input/{COMP}/train.csv")', 'pd.read_csv(f"input/train.csv")'),
        ("DATA = f'/kaggle/input/{COMP}/'", "DATA = f'input/'"),
        ('pd.read_csv(f"../input/{split}.csv")', 'pd.read_csv(f"input/{split}.csv")'),
        ("pd.read_csv(f'/kaggle/input/bc/{split}.csv')", "pd.read_csv(f'input/{split}.csv')"),
        # another Kaggle dataset under a placeholder: not the task's, left for the warning
        (
            'torch.load(f"/kaggle/input/{WEIGHTS}/model.pt")',
            'torch.load(f"/kaggle/input/{WEIGHTS}/model.pt")',
        ),
        # a write: not into input/, and not above the run's work folder either (hunt M)
        ('sub.to_csv(f"../input/sub_{v}.csv")', 'sub.to_csv(f"./sub_{v}.csv")'),
        ('sub.to_csv("../submissions/v3.csv")', 'sub.to_csv("./v3.csv")'),
        ('print(f"{DATA}/train.csv")', 'print(f"{DATA}/train.csv")'),  # no folder of its own
        ('print(f"Reading /kaggle/input/{COMP}...")', 'print(f"Reading /kaggle/input/{COMP}...")'),
    ],
)
def test_the_folder_of_an_f_string_points_at_input_as_a_plain_strings_does(
    written: str, now: str
) -> None:
    """``pd.read_csv(f"/kaggle/input/{COMP}/train.csv")`` was left as written (f-strings were
    skipped): the literal folder before the first placeholder follows the plain-string rules."""
    out, changes = point_to_input(_nb(written), BREAST_CANCER / "input")
    assert out.code_blocks[0].source == now
    assert restore_paths(now, "b1", changes) == written


def test_kaggles_scratch_folder_is_a_folder_of_the_work_folder_made_for_the_run() -> None:
    """``/kaggle/temp`` exists on Kaggle, so notebooks write there without making it; in a run
    it is ``./kaggle_temp``, made by a line MLE-STAR adds (and takes back in proposals)."""
    cells = (
        "import os\nos.makedirs('/kaggle/temp/cache', exist_ok=True)",
        "train.to_pickle(f'/kaggle/temp/train_{SEED}.pkl')\nCACHE = '/kaggle/temp'",
    )
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    first, second = (b.source for b in out.code_blocks)
    assert first.split("\n") == [
        '__import__("os").makedirs("kaggle_temp", exist_ok=True)'
        "  # MLE-STAR: Kaggle's /kaggle/temp is ./kaggle_temp in a run",
        "import os",
        "os.makedirs('./kaggle_temp/cache', exist_ok=True)",
    ]
    assert second == "train.to_pickle(f'./kaggle_temp/train_{SEED}.pkl')\nCACHE = './kaggle_temp'"
    for b, cell in zip(out.code_blocks, cells, strict=True):
        compile(b.source, "cell", "exec")
        assert restore_paths(b.source, b.id, changes) == cell
    assert [c.kind for c in changes] == ["path", "path", "path", "temp"]
    assert "its scratch folder `/kaggle/temp` is `./kaggle_temp` there" in note_for(changes)


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        # the hunt's wine notebook (session 22): DATA pointed at the read-only ./input, then
        # the submission written into it ("Read-only file system: 'input/submission.csv'")
        (
            (
                "DATA = os.path.expanduser('~/datasets/bc')\n"
                "train = pd.read_csv(os.path.join(DATA, 'train.csv'))",
                "sub.to_csv(os.path.join(DATA, 'submission.csv'), index=False)",
            ),
            'sub.to_csv("./submission.csv", index=False)',
        ),
        (
            (
                'ROOT = Path("/home/me/bc")\ntrain = pd.read_csv(ROOT / "train.csv")',
                'OUT = ROOT / "preds.csv"\nsub.to_csv(OUT)',
            ),
            'OUT = "./preds.csv"\nsub.to_csv(OUT)',
        ),
        (
            (
                'DATA = "data/"\ntrain = pd.read_csv(DATA + "train.csv")',
                'train.to_parquet(DATA + "clean.parquet")\nclean = pd.read_parquet(DATA + "clean.parquet")',
            ),
            'train.to_parquet("./clean.parquet")\nclean = pd.read_parquet("./clean.parquet")',
        ),
        (
            (
                "D = '../input/bc'\ntest = pd.read_csv(f'{D}/test.csv')",
                "np.save(f'{D}/oof.npy', oof); plt.savefig(str(D) + '/roc.png')",
            ),
            'np.save("./oof.npy", oof); plt.savefig("./roc.png")',
        ),
    ],
)
def test_files_written_into_the_data_folder_go_to_the_work_folder(
    cells: tuple[str, str], now: str
) -> None:
    """A folder the author kept the data in was theirs to write; a run's ``./input`` is not."""
    nb = _nb(*cells)
    out, changes = point_to_input(nb, BREAST_CANCER / "input")
    assert out.code_blocks[1].source == now
    assert {c.kind for c in changes if c.block_id == "b2"} == {"output"}
    for block in out.code_blocks:  # the user's own cells come back as written
        assert restore_paths(block.source, block.id, changes) == nb.block(block.id).source
    assert "what your cells write into the data folder goes to the run's own" in note_for(changes)


@pytest.mark.parametrize(
    "cells",
    [
        # a folder of outputs, not the data's
        (
            'DATA = "data/"\ntrain = pd.read_csv(DATA + "train.csv")\nOUT = "outputs"',
            'sub.to_csv(os.path.join(OUT, "submission.csv"))',
        ),
        # a file the task's data holds: overwriting it fails, as it should
        (
            'DATA = "data/"\ntrain = pd.read_csv(DATA + "train.csv")',
            'train.to_csv(DATA + "train.csv")',
        ),
        # a name that only looks like the folder's
        (
            'DATA = "data/"\ntrain = pd.read_csv(DATA + "train.csv")',
            'sub.to_csv(MY_DATA + "/sub.csv")',
        ),
    ],
)
def test_writes_outside_the_data_folder_are_left_alone(cells: tuple[str, str]) -> None:
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert out.code_blocks[1].source == cells[1]
    assert not [c for c in changes if c.kind == "output"]


def test_the_outputs_a_notebook_was_saved_with_are_no_candidate_s() -> None:
    """A notebook saved with a 4 MB plot and a large table (hunt, session 23): every candidate
    and final/solution.ipynb carried them (a 14 MB notebook made a 122 MB run in 20 s)."""
    import nbformat

    task = load_task(BREAST_CANCER)
    nb = SolutionNotebook.read(
        ROOT / "tests" / "files" / "user_notebooks" / "bc_random_forest.ipynb"
    )
    for cell in nb.nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="x" * 100_000)]
            cell.execution_count = 7
    prepared = prepare_user_notebook(nb, task)
    code = [c for c in prepared.notebook.nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)
    assert all(c.outputs for c in nb.nb.cells if c.cell_type == "code")  # the user's own kept


@pytest.mark.parametrize(
    ("cells", "want"),
    [
        # a teacher's constants and a function's default (hunt, session 26: "it reads
        # 'train.csv', which a run cannot find")
        (
            ["TRAIN_FILE = 'train.csv'\nTEST_FILE = \"test.csv\"", "df = pd.read_csv(TRAIN_FILE)"],
            [
                "TRAIN_FILE = 'input/train.csv'\nTEST_FILE = \"input/test.csv\"",
                "df = pd.read_csv(TRAIN_FILE)",
            ],
        ),
        (
            ["def load(path='train.csv'):\n    return pd.read_csv(path)", "df = load()"],
            ["def load(path='input/train.csv'):\n    return pd.read_csv(path)", "df = load()"],
        ),
        # a folder joined to a variable that names a file of input/: the folder is pointed
        (
            ["DATA = 'data'\nTRAIN = 'train.csv'", "df = pd.read_csv(os.path.join(DATA, TRAIN))"],
            ["DATA = 'input'\nTRAIN = 'train.csv'", "df = pd.read_csv(os.path.join(DATA, TRAIN))"],
        ),
        (
            [
                "DATA = '/home/alice/churn/data/'\nname = 'train.csv'",
                "df = pd.read_csv(DATA + name)",
            ],
            ["DATA = 'input/'\nname = 'train.csv'", "df = pd.read_csv(DATA + name)"],
        ),
        # a repository's layout, notebooks/ beside data/: the folder written in two parts
        (
            ["DATA = Path('..') / 'data'", "df = pd.read_csv(DATA / 'train.csv')"],
            ["DATA = Path('input') / '.'", "df = pd.read_csv(DATA / 'train.csv')"],
        ),
        # an output's name stays as written
        (
            ["OUT = 'submission.csv'", "sub.to_csv(OUT)"],
            ["OUT = 'submission.csv'", "sub.to_csv(OUT)"],
        ),
    ],
)
def test_file_names_held_by_variables_are_data_paths(cells: list[str], want: list[str]) -> None:
    task = load_task(BREAST_CANCER)
    out, changes = point_to_input(_nb(*cells), task.input_dir)
    assert [b.source for b in out.code_blocks] == want
    for block in out.code_blocks:  # proposals give the user's own text back
        assert restore_paths(block.source, block.id, changes) == cells[block.index]


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        (  # the folder's name handed on as a parameter's default (hunt C, session 27)
            (
                "DATA_DIR = '.'",
                "def load_data(data_dir=DATA_DIR):\n"
                "    return pd.read_csv(f'{data_dir}/train.csv')",
            ),
            (
                "DATA_DIR = 'input'",
                "def load_data(data_dir=DATA_DIR):\n"
                "    return pd.read_csv(f'{data_dir}/train.csv')",
            ),
        ),
        (  # the folder the notebook runs in, by name
            (
                "import os\nfrom pathlib import Path\nROOT = Path.cwd()",
                "train = pd.read_csv(os.path.join(ROOT, 'train.csv'))\n"
                "test = pd.read_csv(ROOT / 'test.csv')",
            ),
            (
                'import os\nfrom pathlib import Path\nROOT = Path.cwd() / "input"',
                "train = pd.read_csv(os.path.join(ROOT, 'train.csv'))\n"
                "test = pd.read_csv(ROOT / 'test.csv')",
            ),
        ),
        (
            ("HERE = os.getcwd()  # data beside me", "df = pd.read_csv(HERE + '/train.csv')"),
            (
                'HERE = os.path.join(os.getcwd(), "input")  # data beside me',
                "df = pd.read_csv(HERE + '/train.csv')",
            ),
        ),
    ],
)
def test_a_notebook_s_own_folder_named_or_handed_on_points_at_input(
    cells: tuple[str, ...], now: tuple[str, ...]
) -> None:
    """Hunt C (session 27): ``DATA_DIR = '.'`` read through ``def load_data(data_dir=DATA_DIR)``,
    and ``ROOT = Path.cwd()`` joined to the data's files, were left as written: the notebook
    found no file ("it reads '/tmp/mlestar-exec-.../work/w/train.csv'") and was set aside."""
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == now
    for b, written in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(b.source, b.id, changes) == written
    if any(c.kind == "cwd" for c in changes):
        assert "the folder it runs in" in note_for(changes)


def test_a_cwd_name_joined_to_nothing_of_input_is_left_alone() -> None:
    cells = ("ROOT = Path.cwd()", "joblib.dump(m, ROOT / 'model.pkl')")
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == cells and not changes


def test_a_missing_file_under_the_run_s_scratch_folder_is_named_as_the_user_wrote_it() -> None:
    task = load_task(BREAST_CANCER)
    error = (
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/tmp/mlestar-exec-welya9yu/kernels/k-9986bc789ff0/work/w/train.csv'"
    )
    said = user_notebook.why_it_failed(error, task)
    assert "it reads './train.csv'" in said and "mlestar-exec" not in said


def test_a_notebook_s_debug_switch_is_turned_off_and_given_back() -> None:
    """Hunt C (session 27): ``DEBUG = True`` with ``if DEBUG: train = train.sample(60)`` and
    ``if not DEBUG: sub.to_csv(...)``: the whole search trained on 60 rows and no submission was
    written ("no ./final/submission.csv was written"), so the catalog's file was handed in."""
    from mlestar_jupyter.agent.debug_switch import debug_off

    cells = (
        "DEBUG = True  # quick checks\nimport pandas as pd",
        "if DEBUG:\n    train = train.sample(60)",
        "if not DEBUG:\n    sub.to_csv('submission.csv', index=False)",
    )
    out, changes = debug_off(_nb(*cells))
    first = out.code_blocks[0].source
    assert first.startswith("DEBUG = False  # MLE-STAR: your debug switch, off for the run")
    assert [c.kind for c in changes] == ["debug"]
    assert restore_paths(first, out.code_blocks[0].id, changes) == cells[0]
    assert "debug switch is off" in note_for(changes)
    untested = ("DEBUG = True", "print('hello')")  # a switch nothing tests: left alone
    assert debug_off(_nb(*untested))[1] == ()
