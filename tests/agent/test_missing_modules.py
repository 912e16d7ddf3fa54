"""Drawing packages the kernel lacks (no kernel): their imports guarded with a stand-in that does
nothing, the user's lines given back in proposals, packages a model needs never stood in for;
the offline debugger's fix for ``No module named 'seaborn'``; and what a run says when the
user's notebook stops on a file it cannot find or a package it lacks."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from mlestar_jupyter.agent.data_paths import note_for, restore_paths
from mlestar_jupyter.agent.missing_modules import guard_imports, missing_module
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook, why_it_failed
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import debug_fixes
from mlestar_jupyter.task import load_task

ROOT = Path(__file__).parents[2]
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"
NONE_INSTALLED = {"seaborn", "plotly", "wordcloud", "catboost"}


def _nb(*cells: str) -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return SolutionNotebook(nb)


def _installed(module: str) -> bool:
    return module not in NONE_INSTALLED


IMPORTS = """import numpy as np
import seaborn   as sns  # pretty plots
from plotly import express as px, graph_objects as go
from wordcloud import (WordCloud, STOPWORDS)
import catboost
import matplotlib.pyplot as plt"""

USES = """sns.set_theme(style="whitegrid")
with sns.axes_style("white"):
    sns.heatmap(np.eye(3), annot=True)
fig = px.bar(x=[1, 2], y=[3, 4])
fig.update_layout(title="t").show()
cloud = WordCloud(stopwords=STOPWORDS).generate("a b c")
for ax in sns.FacetGrid(None).axes:
    pass
print("drawn", sns, px)"""


def test_missing_drawing_packages_are_stood_in_for_and_the_rest_runs() -> None:
    out, changes = guard_imports(_nb(IMPORTS.replace("import catboost\n", ""), USES), _installed)
    assert [c.kind for c in changes] == ["module"] * 3
    assert [c.old for c in changes] == [
        "import seaborn   as sns  # pretty plots",
        "from plotly import express as px, graph_objects as go",
        "from wordcloud import (WordCloud, STOPWORDS)",
    ]
    namespace: dict[str, object] = {}
    for block in out.code_blocks:  # what a kernel without those packages does with the cells
        exec(compile(block.source, block.id, "exec"), namespace)
    assert repr(namespace["sns"]) == "<seaborn: not installed>"
    assert repr(namespace["go"]) == "<plotly: not installed>"
    assert out.code_blocks[0].source.count("class _NotInstalled") == 1
    # the user's cell comes back as written in a proposal
    first = out.code_blocks[0]
    assert restore_paths(first.source, first.id, changes) == IMPORTS.replace(
        "import catboost\n", ""
    )


def test_installed_packages_and_packages_a_model_needs_are_left_alone() -> None:
    nb = _nb(IMPORTS, USES)
    same, none = guard_imports(nb, lambda m: True)
    assert same is nb and not none
    out, changes = guard_imports(nb, _installed)
    assert "import catboost\n" in out.code_blocks[0].source  # its absence is the user's to fix
    assert not any("catboost" in c.old for c in changes)
    again, more = guard_imports(out, _installed)  # guarded once only
    assert not more and again.code_blocks[0].source == out.code_blocks[0].source
    several = "from seaborn import (\n    heatmap,\n    histplot,\n)\nimport numpy as np"
    guarded, one = guard_imports(_nb(several, "heatmap([[1]])\nhistplot([1, 2])"), _installed)
    assert [c.old for c in one] == ["from seaborn import (\n    heatmap,\n    histplot,\n)"]
    namespace: dict[str, object] = {}
    for block in guarded.code_blocks:  # the names over several lines are stood in for
        exec(compile(block.source, block.id, "exec"), namespace)
    assert repr(namespace["histplot"]) == "<seaborn: not installed>"
    commented = "from seaborn import (\n    heatmap,  # maps\n)"
    kept, none = guard_imports(_nb(commented), _installed)  # a comment inside: left whole
    assert not none and kept.code_blocks[0].source == commented


def test_the_note_names_the_guarded_imports() -> None:
    _, changes = guard_imports(_nb("import seaborn as sns"), _installed)
    note = note_for(changes)
    assert "`import seaborn as sns`" in note and "plots are skipped" in note


def test_a_users_notebook_with_seaborn_is_prepared_with_its_imports_guarded() -> None:
    task = load_task(BREAST_CANCER)
    nb = _nb(
        "import pandas as pd\nimport seaborn as sns\nfrom sklearn.linear_model import "
        "LogisticRegression\nfrom sklearn.model_selection import train_test_split",
        "df = pd.read_csv('input/train.csv')\nsns.countplot(x=df['target'])",
        "X, y = df.drop(columns=['id', 'target']), df['target']\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
        "model = LogisticRegression(max_iter=500).fit(X_tr, y_tr)",
    )
    prepared = prepare_user_notebook(nb, task, installed=_installed)
    assert prepared.understood and [c.kind for c in prepared.data_paths] == ["module"]
    assert (
        '_NotInstalled("seaborn")' in prepared.notebook.code_blocks[1].source
    )  # [0]: the seed cell
    assert "plots are skipped" in prepared.notebook.nb.cells[1].source  # the note above it


@pytest.mark.parametrize(
    ("error", "top"),
    [
        ("ModuleNotFoundError: No module named 'seaborn'", "seaborn"),
        ("ModuleNotFoundError: No module named 'plotly.express'", "plotly"),
        ("ModuleNotFoundError: No module named 'catboost'", None),
        ("NameError: name 'sns' is not defined", None),
    ],
)
def test_the_error_names_a_drawing_package_or_not(error: str, top: str | None) -> None:
    assert missing_module(error) == top


def test_the_offline_debugger_stands_in_for_the_package_the_error_names() -> None:
    nb = _nb("import seaborn as sns\nimport plotly.express as px", "sns.histplot([1, 2])")
    fixed = debug_fixes.drawing_package(nb, "ModuleNotFoundError: No module named 'seaborn'")
    assert fixed is not None
    src = fixed.code_blocks[0].source
    assert 'sns = _NotInstalled("seaborn")' in src and "try:\n    import plotly" not in src
    assert debug_fixes.drawing_package(nb, "No module named 'xgboost'") is None
    assert debug_fixes.drawing_package(fixed, "No module named 'seaborn'") is None  # done


def test_a_failed_users_notebook_says_what_to_do() -> None:
    task = load_task(BREAST_CANCER)
    lost = why_it_failed(
        "FileNotFoundError: [Errno 2] No such file or directory: 'C:/data/cancer.csv'", task
    )
    assert "'C:/data/cancer.csv'" in lost and "./input" in lost and "train.csv" in lost
    assert "'input/...'" in lost
    missing = why_it_failed("ModuleNotFoundError: No module named 'catboost.core'", task)
    assert "'catboost'" in missing and "install it" in missing
    assert why_it_failed("ValueError: could not convert string to float: 'M'", task) == ""


def test_a_module_of_the_users_own_folder_is_named_not_to_be_installed(tmp_path: Path) -> None:
    """``from helpers import features`` with ``helpers.py`` beside a notebook outside the task's
    folder: the message names the file and where to put it, and says nothing of installing."""
    task = load_task(BREAST_CANCER)
    (tmp_path / "helpers.py").write_text("def features(df):\n    return df\n")
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    error = "ModuleNotFoundError: No module named 'helpers'"
    own = why_it_failed(error, task, tmp_path)
    assert str(tmp_path / "helpers.py") in own and "install" not in own
    assert str(task.input_dir) in own and "put helpers.py there" in own
    assert "mypkg" in why_it_failed("No module named 'mypkg.sub'", task, tmp_path)
    assert "install it" in why_it_failed(error, task)  # not found anywhere: a package
