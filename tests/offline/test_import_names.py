"""Imports that cannot succeed are found from the installed files, without importing them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.codecheck.import_names import bad_imports, repair_import_names

GOOD = """
from sklearn.ensemble import RandomForestClassifier, HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split, StratifiedKFold
from sklearn.metrics import roc_auc_score, mean_squared_error
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.experimental import enable_hist_gradient_boosting
from lightgbm import LGBMClassifier, early_stopping
from scipy.io import wavfile
from scipy.sparse import hstack
from os.path import join
from pathlib import Path
from collections import Counter
from torch.utils.data import DataLoader
from torch.nn import functional as F
from PIL import Image
from surely_not_installed_pkg import anything
"""


def test_real_imports_are_not_flagged() -> None:
    assert bad_imports(GOOD) == []


def test_wrong_names_and_modules_are_found_with_suggestions() -> None:
    bad = bad_imports(
        "from lightgbm import LightGBMClassifier\n"
        "from sklearn.ensembles import RandomForestClassifier\n"
        "from sklearn.metrics import roc_auc\n"
    )
    described = [b.describe() for b in bad]
    assert described[0].startswith("cannot import name 'LightGBMClassifier' from 'lightgbm'")
    assert "LGBMClassifier" in described[0]
    assert described[1] == "there is no module 'sklearn.ensembles' (did you mean sklearn.ensemble?)"
    assert described[2] == "cannot import name 'roc_auc' from 'sklearn.metrics'"


def test_repair_renames_only_clear_winners() -> None:
    src = (
        "from sklearn.ensembles import RandomForestClassifier\n"
        "from sklearn.linear_model import LogisticRegresion\n"
        "from sklearn.metrics import roc_auc\n"
        "clf = LogisticRegresion()\n"
    )
    fixed, left = repair_import_names(src, bad_imports(src))
    assert "from sklearn.ensemble import RandomForestClassifier" in fixed
    assert "clf = LogisticRegression()" in fixed and "LogisticRegresion" not in fixed
    assert [b.name for b in left] == ["roc_auc"] and bad_imports(fixed)[0].name == "roc_auc"


@pytest.mark.parametrize(
    "module_text", ["def __getattr__(name):\n    return name\n", "from .x import *\n"]
)
def test_modules_that_make_names_at_run_time_get_the_benefit_of_the_doubt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module_text: str
) -> None:
    pkg = tmp_path / "lazypkg_xyz"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(module_text)
    (pkg / "x.py").write_text("A = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert bad_imports("from lazypkg_xyz import Anything\n") == []
    assert bad_imports("from lazypkg_xyz.x import A\n") == []
    assert [b.name for b in bad_imports("from lazypkg_xyz.x import B\n")] == ["B"]
