"""Static checks on plain source: leakage, unused files, undefined names and imports."""

from __future__ import annotations

from pathlib import Path

from mlestar_jupyter.codecheck.prescreen import prescreen
from mlestar_jupyter.codecheck.static_checks import (
    find_leakage,
    fix_leakage,
    modules_in,
    repair_imports,
    unavailable_imports,
    undefined_names,
    unused_files,
)

CLEAN = """
import pandas as pd
from sklearn.preprocessing import StandardScaler
train = pd.read_csv("./input/train.csv")
test = pd.read_csv("./input/test.csv")
y = train["target"]
X = train.drop(columns=["target", "id"])
scaler = StandardScaler()
X_scaled = scaler.fit_transform(X)
X_test_scaled = scaler.transform(test[X.columns])
print(f"Final Validation Performance: {0.5}")
"""


def test_clean_code_has_no_leak():
    assert find_leakage(CLEAN, "target") == []


def test_fit_on_test_is_found_and_fixed():
    src = CLEAN.replace(
        "scaler.transform(test[X.columns])", "scaler.fit_transform(test[X.columns])"
    )
    found = find_leakage(src)
    assert [f.kind for f in found] == ["fit_on_test"]
    fixed = fix_leakage(src, found[0])
    assert fixed is not None and find_leakage(fixed) == []
    lone = CLEAN + "scaler.fit(X_test)\n"
    f = find_leakage(lone)[0]
    assert f.kind == "fit_on_test" and "scaler.fit(X_test)" not in fix_leakage(lone, f)


def test_fit_on_train_test_concat_is_found():
    src = CLEAN.replace(
        "X_scaled = scaler.fit_transform(X)",
        "both = pd.concat([X, test[X.columns]])\nboth_num = both.fillna(0)\nscaler.fit(both_num)\nX_scaled = scaler.transform(X)",
    )
    found = find_leakage(src)
    assert [f.kind for f in found] == ["fit_on_concat"]
    assert fix_leakage(src, found[0]) is None
    # Splitting the concat back apart before fitting is fine.
    ok = CLEAN.replace(
        "X_scaled = scaler.fit_transform(X)",
        "both = pd.concat([X, test])\nX_tr = both.iloc[: len(X)]\nscaler.fit(X_tr)",
    )
    assert find_leakage(ok) == []


def test_fit_on_validation_before_the_score_is_found():
    src = CLEAN.replace('print(f"Final', 'model.fit(X_val, y_val)\nprint(f"Final')
    assert [f.kind for f in find_leakage(src)] == ["fit_on_validation"]
    after = CLEAN + "model.fit(X_val, y_val)\n"
    assert find_leakage(after) == []


def test_target_among_features_is_found():
    src = CLEAN.replace(
        'X = train.drop(columns=["target", "id"])', 'X = train.drop(columns=["id"])'
    )
    assert [f.kind for f in find_leakage(src, "target")] == ["target_as_feature"]
    src2 = 'TARGET = "target"\n' + CLEAN.replace(
        'y = train["target"]', "y = train[TARGET]"
    ).replace('X = train.drop(columns=["target", "id"])', "X = train")
    assert [f.kind for f in find_leakage(src2)] == ["target_as_feature"]
    ok = 'TARGET = "target"\n' + CLEAN.replace('y = train["target"]', "y = train[TARGET]").replace(
        '["target", "id"]', '[TARGET, "id"]'
    )
    assert find_leakage(ok) == []


def test_unused_files():
    files = ["train.csv", "test.csv", "stores.csv", "images", "sample_submission.csv"]
    assert unused_files(CLEAN, files) == ["stores.csv", "images", "sample_submission.csv"]
    src = (
        CLEAN
        + 'imgs = list(Path("./input/images").glob("*.png"))\nsub = pd.read_csv(INPUT / "sample_submission.csv")\n'
    )
    assert unused_files(src, files) == ["stores.csv"]
    assert unused_files('tables = glob.glob("./input/*.csv")', ["a.csv", "b.txt"]) == ["b.txt"]


def test_undefined_names_and_repair():
    src = "df = pd.read_csv('x.csv')\nX_tr, X_va = train_test_split(df)\nm = LogisticRegression().fit(X_tr, y)\n"
    assert undefined_names(src) == {"pd", "train_test_split", "LogisticRegression", "y"}
    repaired = repair_imports(src)
    assert "import pandas as pd" in repaired
    assert "from sklearn.model_selection import train_test_split" in repaired
    assert "from sklearn.linear_model import LogisticRegression" in repaired
    assert undefined_names(repaired) == {"y"}  # not an import: left for the debugger
    doc = '"""Doc."""\nfrom __future__ import annotations\nx = np.zeros(3)\n'
    assert repair_imports(doc).splitlines()[2] == "import numpy as np"


def test_scopes_functions_and_comprehensions():
    src = "def f(a, *args, k=1, **kw):\n    return [b for b in a] + list(args)\nclass C:\n    pass\ntry:\n    f(1)\nexcept Exception as e:\n    print(e)\n"
    assert undefined_names(src) == set()
    assert undefined_names("def broken(:") == set()


def test_unavailable_imports():
    src = "import numpy as np\nimport surely_not_a_module_xyz\nfrom another_missing_pkg.sub import thing\nfrom sklearn.svm import SVC\n"
    assert unavailable_imports(src) == ["surely_not_a_module_xyz", "another_missing_pkg"]


def test_a_users_own_module_in_the_data_is_not_called_missing(tmp_path: Path) -> None:
    """A notebook's ``helpers.py`` sits in the task's data, which the kernels import from: an
    LLM's code importing it was sent back as "not installed" (a re-ask for nothing)."""
    (tmp_path / "helpers.py").write_text("def features(df):\n    return df\n")
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "notes").mkdir()  # a folder that is no package
    (tmp_path / "train.csv").write_text("a,b\n1,2\n")
    local = modules_in(tmp_path)
    assert local == {"helpers", "utils"}
    code = "from helpers import features\nimport utils\nimport surely_not_a_module_xyz\n"
    assert unavailable_imports(code, local) == ["surely_not_a_module_xyz"]
    _, problem = prescreen("from helpers import features\nprint(features)\n", local)
    assert problem is None
    _, problem = prescreen("from helpers import features\nprint(features)\n")
    assert problem is not None and "helpers" in problem
    assert modules_in(tmp_path / "no-such-folder") == frozenset()


def test_repaired_imports_join_the_first_cell_not_a_cell_of_their_own() -> None:
    from mlestar_jupyter.codecheck.static_checks import repair_imports

    out = repair_imports("# %% load\nimport pandas as pd\nmodel = LGBMClassifier()\n")
    assert out.splitlines()[:2] == ["# %% load", "from lightgbm import LGBMClassifier"]
    assert repair_imports("x = np.zeros(2)\n").startswith("import numpy as np\n")
