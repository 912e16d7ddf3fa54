"""Press MLE-STAR on plain, untagged notebooks (offline backend, real kernels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
PACK = ROOT / "tests" / "files" / "user_notebooks"
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"
DIABETES = ROOT / "example_notebooks" / "tasks" / "diabetes"


def _run(
    name: str | Path, tmp_path: Path, task_dir: Path = BREAST_CANCER, **kw: int
) -> tuple[object, list]:  # type: ignore[type-arg]
    task = load_task(task_dir)
    cfg = RunConfig(
        num_models=kw.get("m", 4),
        inner_steps=kw.get("k", 2),
        outer_steps=kw.get("t", 2),
        parallel_solutions=2,
        ensemble_rounds=kw.get("e", 0),
        debug_rounds=1,
        budget=Budget(wall_seconds=kw.get("wall", 400), exec_timeout=60),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(task_dir)})
    start = SolutionNotebook.read(name if isinstance(name, Path) else PACK / f"{name}.ipynb")
    with Executor(timeout=60, max_parallel=2, pool_size=2) as ex:
        out = run_mlestar(
            task,
            cfg,
            journal,
            ex,
            lambda i: OfflinePolicy(task, cfg, seed=i),
            start_notebook=start,
        )
    journal.close()
    return out, read_events(journal.events_path)


def test_an_untagged_notebook_is_ablated_and_refined_without_repeats(tmp_path: Path) -> None:
    out, evs = _run("bc_random_forest", tmp_path)
    data = [(e.type, e.data) for e in evs]
    understanding = next(d for t, d in data if t == "understanding")
    assert understanding["understood"] and understanding["roles"]["b4"] == "model"
    user = next(d for t, d in data if t == "candidate" and d["id"] == "user")
    assert user["score"] is not None
    studies = [d for t, d in data if t == "ablation" and d["t"] == 0]
    assert studies and all(len(s["results"]) >= 2 for s in studies)
    assert all(r["score"] is not None for s in studies for r in s["results"])
    proposals = [d for t, d in data if t == "proposal"]
    assert any(p["score_after"] > user["score"] for p in proposals)
    for path in ("p0", "p1"):
        targets = [d["block_id"] for t, d in data if t == "target" and d["path"] == path]
        plans = [(d["block_id"], d["plan"]) for t, d in data if t == "plan" and d["path"] == path]
        # a block is refined again only once every refinable part was refined
        parts = len(set(targets))
        assert len(set(targets[:parts])) == parts, targets
        assert len(plans) == len(set(plans)), plans  # no plan applied twice to a block
    first = {d["path"]: d["plan"] for t, d in data if t == "plan" and d["t"] == 0 and d["k"] == 0}
    assert first["p0"] != first["p1"]  # the two paths start differently
    finished = next(d for t, d in data if t == "run_finished")
    assert finished["status"] in ("done", "stopped") and out.final.ok  # type: ignore[attr-defined]


def test_a_notebook_without_a_model_is_not_understood_and_the_task_is_solved(
    tmp_path: Path,
) -> None:
    """An EDA notebook (no model fit): the run says it was not understood, and spends its budget
    building the task's solutions, as from a task folder: models retrieved, merged and refined
    (before: the search ended at once, and the final phase handed in one catalog model)."""
    # one model per path keeps the search small enough to reach its refinement inside the budget
    # on a loaded machine (with 4 models each, the 8 initial solutions took all of 120 s there)
    out, evs = _run("bc_eda_only", tmp_path, m=1, t=1, k=1, wall=240)
    finished = next(e.data for e in evs if e.type == "run_finished")
    assert finished["status"] == "not_understood"
    assert finished["reason"].startswith("no model fit found")
    assert "the solutions come from the task instead" in finished["reason"]
    assert not any(e.type == "candidate" and e.data["id"] == "user" for e in evs)
    phases = {e.data.get("phase") for e in evs if e.type == "candidate"}
    assert {"init", "refine"} <= phases, phases
    assert out.status == "not_understood"  # type: ignore[attr-defined]
    assert out.final.ok and out.final.rung in ("best", "blend"), out.final  # type: ignore[attr-defined]


def test_a_one_cell_model_is_refined_until_no_strategy_is_left(tmp_path: Path) -> None:
    """An outsider's regression notebook (fit, predict and print in one cell; a random forest):
    later outer steps refine that cell again with new strategies, no classifier-only strategy
    is tried on the regressor, and a path that has nothing left to refine ends its refinement
    with one event saying so (it ran empty ablations with an "extractor failed" warning at each
    remaining step, and stopped after one step while strategies were left)."""
    out, evs = _run("diabetes_rf_fit_in_one_cell", tmp_path, DIABETES, t=6, k=3)
    data = [(e.type, e.data) for e in evs]
    for path in ("p0", "p1"):
        steps = [d["t"] for t, d in data if t == "target" and d["path"] == path]
        assert len(steps) >= 2, steps
        plans = [(d["block_id"], d["plan"]) for t, d in data if t == "plan" and d["path"] == path]
        assert len(plans) == len(set(plans)), plans
    assert not any("class weights" in d["plan"] for t, d in data if t == "plan")
    assert not any(t == "warning" and "extractor failed" in d["message"] for t, d in data)
    ended = [d for t, d in data if t == "budget" and "refinement ends" in d["message"]]
    assert {d["message"].split(":")[0] for d in ended} <= {"p0", "p1"}
    assert len(ended) == len({d["message"].split(":")[0] for d in ended})  # once per path
    assert all(
        "every strategy for the notebook's parts has been tried" in d["message"] for d in ended
    )
    user = next(d for t, d in data if t == "candidate" and d["id"] == "user")
    assert out.final.ok and out.best_score < user["score"]  # type: ignore[attr-defined]


OUTSIDERS = ROOT / "tests" / "files" / "outsider_notebooks"


@pytest.mark.parametrize(
    "name",
    [
        "bc_kaggle_paths_lgb_train",
        "bc_data_folder_one_cell",
        "bc_parent_input_pip_cv",
        "bc_seaborn_data_dir_dict",
        "bc_home_folder_writes_beside_data",
        "bc_raise_systemexit_scratch",
        "bc_input_questions_answered",
        "bc_saved_error_cell",
    ],
)
def test_notebooks_written_elsewhere_run_on_the_tasks_data(name: str, tmp_path: Path) -> None:
    """Notebooks written the way outsiders write them (Kaggle paths and ``lgb.train`` with a plot,
    everything in one cell reading ``data/``, ``../input`` with a ``!pip install`` and 5-fold
    CV, a folder variable joined to a dict of file names with seaborn plots where the kernel has
    no seaborn, a folder in the home directory that a cleaned copy and the submission are written
    into and read back from, which a run keeps read-only, a ``raise SystemExit`` above scratch
    cells that would fail, ``input()`` questions answered in JupyterLab and saved, an exploration cell saved with its
    error before the cells below were run): each reads the task's data and scores as the user's own solution (before, each failed
    on its first file read and the run fell back to the task's own candidates); a proposal
    for a cell whose paths were pointed at ./input gives that cell back with the user's paths,
    and accepting it changes the user's notebook."""
    from mlestar_jupyter.widgets.proposals import apply_to_notebook

    out, evs = _run(OUTSIDERS / f"{name}.ipynb", tmp_path, t=1, k=4)
    data = [(e.type, e.data) for e in evs]
    understanding = next(d for t, d in data if t == "understanding")
    assert understanding["understood"] and understanding["data_paths"]
    user = next(d for t, d in data if t == "candidate" and d["id"] == "user")
    assert user["ok"] and user["score"] is not None and user["score"] > 0.9, user["error"]
    assert not any(t == "warning" and "gave no validation score" in d["message"] for t, d in data)
    written = SolutionNotebook.read(OUTSIDERS / f"{name}.ipynb")
    own = {b.id: b.source for b in written.code_blocks}
    applied_one = False
    for p in (d for t, d in data if t == "proposal" and d["kind"] == "change"):
        assert p["old_source"] == own[p["block_id"]]  # the user's cell, paths and all
        olds = [o for b, o, *_ in understanding["data_paths"] if b == p["block_id"]]
        if olds:
            copy = tmp_path / "mine.ipynb"
            written.write(copy)
            assert apply_to_notebook(copy, p).startswith("applied to")
            applied = SolutionNotebook.read(copy).block(p["block_id"]).source
            assert applied == p["new_source"] and all(o in applied for o in olds)
            applied_one = True
    if name == "bc_data_folder_one_cell":  # its one cell reads the data and fits the model
        assert applied_one
    assert out.final.ok  # type: ignore[attr-defined]


def test_solutions_of_a_users_notebook_are_not_ensembled_offline(tmp_path: Path) -> None:
    """Two paths refined from one user notebook end with different code: the offline ensembler
    (which joins catalog solutions through their ``val_pred``) says once why it does not
    ensemble them, instead of five rounds failing with ``NameError`` and their debugger runs."""
    out, evs = _run(OUTSIDERS / "bc_data_folder_one_cell.ipynb", tmp_path, t=2, k=4, e=3)
    data = [(e.type, e.data) for e in evs]
    assert any(t == "phase" and d["phase"] == "ensemble" for t, d in data)  # it got that far
    assert not any(t == "candidate" and d["phase"] == "ensemble" for t, d in data)
    why = [d["message"] for t, d in data if t == "warning" and "ensemble" in d["message"]]
    assert len(why) == 1 and "your notebook's own code" in why[0]
    assert out.final.ok  # type: ignore[attr-defined]
