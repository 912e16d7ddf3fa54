"""Parsing of role answers and the pre-screen, without kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.environment import truncate_middle
from mlestar_jupyter.agent.llm_policy import (
    LLMPolicy,
    parse_ablation_lines,
    resolve_target,
    script_to_notebook,
)
from mlestar_jupyter.agent.roles import ROLES
from mlestar_jupyter.codecheck.prescreen import prescreen
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.testing import FakeLLMServer
from mlestar_jupyter.notebook import BlockMatchError, SolutionNotebook
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

NB = SolutionNotebook.new(
    [
        ("load", "import pandas as pd\ndf = pd.read_csv('input/train.csv')"),
        ("model", "model = Ridge(alpha=1.0)\nmodel.fit(X, y)"),
    ]
)


def _policy(srv: FakeLLMServer, task_dir: Path, cache_dir: Path) -> LLMPolicy:
    """An LLM policy for ``task_dir`` whose client talks to ``srv`` and caches in ``cache_dir``."""
    return grounded_llm_policy(
        load_task(task_dir),
        RunConfig(backend="openai"),
        LLMClient.from_settings(srv.settings("openai"), cache_dir=cache_dir),
    )


def test_resolve_target_by_id_fragment_or_quote() -> None:
    assert resolve_target(NB, "b2", "", "p").fragment is None
    t = resolve_target(NB, "b2", "model = Ridge(alpha=1.0)", "p")
    assert (t.block_id, t.fragment) == ("b2", "model = Ridge(alpha=1.0)")
    assert (
        resolve_target(NB, "", "model.fit(X, y)", "p").block_id == "b2"
    )  # no id: found by its code
    with pytest.raises(BlockMatchError):
        resolve_target(NB, "b7", "model = Lasso()", "p")


def test_script_to_notebook_roles_and_unmarked_scripts() -> None:
    nb = script_to_notebook("# %% load\nx = 1\n# %% train model\ny = 2\n")
    assert [(b.id, b.role) for b in nb.code_blocks] == [("b1", "load"), ("b2", "train")]
    plain = script_to_notebook(
        "import numpy as np\n# Load data\nx = np.zeros(3)\n# Train the model\ny = x + 1\n"
    )
    assert len(plain.code_blocks) == 3
    with pytest.raises(Exception, match="no code cells"):
        script_to_notebook("# %% [markdown]\n# only words\n")


def test_ablation_lines_parse() -> None:
    out = parse_ablation_lines(
        "Ablation baseline: 0.91\nAblation no scaling: 0.88\nsomething else\nAblation drop age = 9.1e-1"
    )
    assert out == {"baseline": 0.91, "no scaling": 0.88, "drop age": 0.91}


def test_prescreen_repairs_imports_and_refuses_what_cannot_run() -> None:
    code, problem = prescreen("df = pd.DataFrame({'a': np.arange(3)})\nprint(df)")
    assert problem is None and "import pandas as pd" in code and "import numpy as np" in code
    assert "not installed" in (prescreen("import surely_not_a_module_xyz\n")[1] or "")
    assert "SyntaxError" in (prescreen("def f(:\n")[1] or "")
    assert "exit" in (prescreen("import sys\nsys.exit(0)\n")[1] or "")
    # the lane's debugger once answered with the prompt's own heading as a comment
    assert "no code" in (prescreen("# Notebook with an error (cells are marked)\n")[1] or "")


def test_prescreen_fixes_a_misremembered_class_name_and_reports_an_unknown_one() -> None:
    # what Qwen2.5-Coder-1.5B wrote in the small-model lane
    code, problem = prescreen(
        "from lightgbm import LightGBMClassifier\nmodel = LightGBMClassifier(n_estimators=5)\n"
    )
    assert problem is None and "LightGBMClassifier" not in code
    assert "from lightgbm import LGBMClassifier" in code and "LGBMClassifier(n_estimators" in code
    code, problem = prescreen("from sklearn.metrics import roc_auc\n")
    assert problem and "cannot import name 'roc_auc' from 'sklearn.metrics'" in problem


def test_truncate_middle_keeps_head_and_tail() -> None:
    text = "HEAD" + "x" * 10_000 + "TAIL"
    cut = truncate_middle(text, 500)
    assert (
        len(cut) < 600
        and cut.startswith("HEAD")
        and cut.endswith("TAIL")
        and "characters cut" in cut
    )


def test_templates_fail_loudly_on_missing_variables() -> None:
    import jinja2

    with pytest.raises(jinja2.UndefinedError):
        ROLES["coder"].render(block="x = 1")  # no plan


def test_system_prompt_carries_environment_and_task_metric(tabular_task: Path) -> None:
    with FakeLLMServer() as srv:
        policy = grounded_llm_policy(
            load_task(tabular_task),
            RunConfig(backend="openai"),
            LLMClient.from_settings(srv.settings("openai")),
        )
    assert (
        "roc_auc (higher is better)" in policy.system
        and "scikit-learn==" in policy.system
        and "Python 3." in policy.system
    )


def test_novelty_check_reasks_until_one_word(tabular_task: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.script("I think it might be fine", "Novel.")
        policy = _policy(srv, tabular_task, tmp_path / "llm")
        assert policy.check_novelty(NB, "A write-up about ridge regression.") == "Novel"
        assert len(srv.requests) == 2 and "Novel or Same" in srv.requests[1].text


def test_prompts_are_trimmed_to_the_model_context(tabular_task: Path, tmp_path: Path) -> None:
    huge = SolutionNotebook.new(
        [
            ("load", "x = 1\n" + "# filler line of a very long cell\n" * 5000),
            ("model", "model = Ridge()"),
        ]
    )
    with FakeLLMServer() as srv:
        srv.script("```python\n# %% b1 (load)\nx = 1\n# %% b2 (model)\nmodel = 2\n```")
        policy = grounded_llm_policy(
            load_task(tabular_task),
            RunConfig(backend="openai"),
            LLMClient.from_settings(srv.settings("openai")),
            context_tokens=4096,
        )
        policy.debug(huge, "Traceback\n" + "frame\n" * 20_000 + "ValueError: the real cause", None)
        sent = srv.requests[0].text
    assert len(sent) < 4096 * 3  # fits an 4k-token window with room for the answer
    assert "ValueError: the real cause" in sent  # the tail of the traceback survives


def test_list_answers_wrapped_by_json_object_servers_are_unwrapped() -> None:
    from mlestar_jupyter.agent.roles import RetrievedModel
    from mlestar_jupyter.llm import parse_json

    def _models_from(text: str) -> list[RetrievedModel]:
        return parse_json(text, list[RetrievedModel])

    for text in (
        '{"items": [{"model_name": "LightGBM", "example_code": "x"}]}',
        '[{"model_name": "LightGBM"}]',
        '{"model_name": "LightGBM"}',
    ):
        assert [m.model_name for m in _models_from(text)] == ["LightGBM"]


def test_quoted_fragments_lose_cell_markers_and_stray_fences() -> None:
    from mlestar_jupyter.agent.llm_policy import _without_stray_fences

    t = resolve_target(NB, "", "# %% b2 (model)\nmodel = Ridge(alpha=1.0)", "p")
    assert (t.block_id, t.fragment) == ("b2", "model = Ridge(alpha=1.0)")
    assert _without_stray_fences("# fixed\n```python\nx = 1\n```") == "# fixed\nx = 1"


def test_undefined_names_are_sent_back_once(tabular_task: Path, tmp_path: Path) -> None:
    from mlestar_jupyter.agent.policy import ModelCard

    bad = "```python\n# %% load\nimport pandas as pd\ndf = pd.read_csv('input/train.csv')\nprint(y_test)\n```"
    good = "```python\n# %% load\nimport pandas as pd\ndf = pd.read_csv('input/train.csv')\nprint(df.shape)\n```"
    with FakeLLMServer() as srv:
        srv.script(bad, good)
        policy = _policy(srv, tabular_task, tmp_path / "llm")
        nb = policy.init_solution(ModelCard("Ridge", "ridge"))
        assert "df.shape" in nb.source
        assert len(srv.requests) == 2 and "never defined: y_test" in srv.requests[1].text


def test_a_leakage_fix_that_breaks_the_program_is_discarded(
    tabular_task: Path, tmp_path: Path
) -> None:
    nb = SolutionNotebook.new(
        [
            ("load", "import pandas as pd\ndf = pd.read_csv('input/train.csv')"),
            ("features", "X = df.drop(columns=['target'])\ny = df['target']"),
            ("model", "print(X.shape, y.mean())"),
        ]
    )
    detect = '{"leakage": true, "code_block": "X = df.drop(columns=[\'target\'])\\ny = df[\'target\']", "reason": "uses the target"}'
    fine = "```python\nX = df.drop(columns=['target'])\ny = df['target'].copy()\n```"
    drops_x = "```python\nfeatures = df.drop(columns=['target'])\ny = df['target'].copy()\n```"
    for answer, kept in ((fine, True), (drops_x, False)):  # the small model's "fix" loses X
        with FakeLLMServer() as srv:
            srv.script(detect, answer)
            policy = grounded_llm_policy(
                load_task(tabular_task),
                RunConfig(backend="openai"),
                LLMClient.from_settings(srv.settings("openai"), cache_dir=tmp_path / str(kept)),
            )
            report = policy.check_leakage(nb)
        assert report.leaky and report.block_id == "b2"
        if kept:
            assert report.fixed_source and "y = df['target'].copy()" in report.fixed_source
        else:
            assert report.fixed_source is None
            assert "fix discarded: it left X undefined" in report.reason


def test_init_prompt_shows_the_data_and_starter_cells_a_model_can_lean_on(
    tabular_task: Path, tmp_path: Path
) -> None:
    """What Qwen2.5-Coder-1.5B got wrong in the lane: invented column names, no loading at all.
    The prompt shows the real columns and cells that load the data; an answer that uses ``X`` and
    ``y`` without loading them gets those cells put in front (no re-ask), and the notebook runs."""
    import subprocess
    import sys

    from mlestar_jupyter.agent.policy import ModelCard

    answer = (
        "```python\n# %% model\nfrom sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import roc_auc_score\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0)\n"
        "model = RandomForestClassifier(n_estimators=20, random_state=0).fit(X_tr, y_tr)\n"
        "print('Final Validation Performance:', roc_auc_score(y_va, model.predict_proba(X_va)[:, 1]))\n```"
    )
    with FakeLLMServer() as srv:
        srv.script(answer)
        policy = _policy(srv, tabular_task, tmp_path / "llm")
        nb = policy.init_solution(ModelCard("Random Forest Classifier", "rf"))
        sent = srv.requests[0].text
    assert len(srv.requests) == 1  # no re-ask for X / y
    assert "# Data at a glance" in sent and "mean_radius (float64)" in sent
    assert (
        "# Loading the data" in sent
        and 'X = train_df.drop(columns=["id", "target"], errors="ignore")' in sent
    )
    assert nb.code_blocks[0].role == "load" and "pd.read_csv" in nb.code_blocks[0].source
    proc = subprocess.run(
        [sys.executable, "-c", nb.source], cwd=tabular_task, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert "Final Validation Performance: 0.9" in proc.stdout


def test_answers_that_load_their_own_data_are_left_alone(tabular_task: Path) -> None:
    from mlestar_jupyter.agent.llm_policy import with_starter

    starter = (
        "# %% load\nimport pandas as pd\nX = pd.read_csv('input/train.csv')\ny = X.pop('target')\n"
    )
    own = "# %% load\nimport pandas as pd\nX = pd.read_csv('input/train.csv')\ny = X.pop('target')\nprint(X.shape)"
    assert with_starter(own, starter) == own
    assert with_starter("print(X.shape, y.mean())", starter).startswith(starter.rstrip())


def test_debugger_and_submission_prompts_show_the_data(tabular_task: Path, tmp_path: Path) -> None:
    fixed = "```python\n# %% b1 (load)\nimport pandas as pd\ndf = pd.read_csv('input/train.csv')\n# %% b2 (model)\nprint(df.shape)\n```"
    with FakeLLMServer() as srv:
        srv.script(fixed, fixed)
        policy = _policy(srv, tabular_task, tmp_path / "llm")
        policy.debug(
            NB, "KeyError: \"None of [Index(['mean', 'error'])] are in the [columns]\"", "b2"
        )
        policy.make_submission(NB)
        debug_prompt, submission_prompt = srv.requests[0].text, srv.requests[1].text
    for sent in (debug_prompt, submission_prompt):
        assert "`train.csv`:" in sent and "worst_radius (float64)" in sent


def test_retrieved_cards_without_real_code_borrow_the_catalogs_example(
    tabular_task: Path, tmp_path: Path
) -> None:
    answer = (
        '[{"model_name": "Random Forest Classifier", "example_code": "# Import necessary libraries"},'
        ' {"model_name": "Ridge Classifier", "example_code": "from sklearn.linear_model import RidgeClassifier\\n'
        'model = RidgeClassifier(alpha=2.0)\\nmodel.fit(X_train, y_train)"}]'
    )
    with FakeLLMServer() as srv:
        srv.script(answer)
        policy = _policy(srv, tabular_task, tmp_path / "llm")
        cards = policy.retrieve(2)
    assert [c.name for c in cards] == ["Random Forest Classifier", "Ridge Classifier"]
    assert "RandomForestClassifier(" in cards[0].example_code  # the catalog's example
    assert "RidgeClassifier(alpha=2.0)" in cards[1].example_code  # the model's own, kept


def test_subsampling_is_asked_for_only_when_the_task_is_large(
    tabular_task: Path, tmp_path: Path
) -> None:
    """The 1.5B model put its train/validation split under ``if len(y) > 30000:`` on a 426-row
    table: the subsample instruction is left out when the training rows fit."""
    from mlestar_jupyter.agent.policy import ModelCard

    answer = "```python\n# %% model\nprint(X_train.shape, X_val.shape)\n```"
    sent = {}
    for max_rows in (30000, 100):
        with FakeLLMServer() as srv:
            srv.script(answer)
            policy = grounded_llm_policy(
                load_task(tabular_task),
                RunConfig(backend="openai", max_train_rows=max_rows),
                LLMClient.from_settings(srv.settings("openai"), cache_dir=tmp_path / str(max_rows)),
            )
            policy.init_solution(ModelCard("Ridge", "ridge"))
            sent[max_rows] = srv.requests[0].text
    assert "subsample them" not in sent[30000] and "# %% subsample" not in sent[30000]
    assert "more than 100 training rows, subsample them to 100" in sent[100]


def test_answers_are_capped_to_a_quarter_of_the_context(
    tabular_task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lane's tiny-digits run: the retriever's answer under llama.cpp's JSON grammar ran on
    for minutes (no max_tokens).  Every request now carries a cap: a quarter of the window, or
    the user's smaller ``max_tokens``."""
    from mlestar_jupyter.policies import make_policy_factory

    with FakeLLMServer() as srv:
        srv.script("Novel", "Novel")
        policy = grounded_llm_policy(
            load_task(tabular_task),
            RunConfig(backend="openai"),
            LLMClient.from_settings(srv.settings("openai"), cache_dir=tmp_path / "a"),
            context_tokens=8192,
        )
        policy.check_novelty(NB, "reference")
        assert srv.requests[0].body["max_tokens"] == 2048
        monkeypatch.setenv("MLESTAR_LLM_MAX_TOKENS", "700")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.openai_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        make, _ = make_policy_factory(
            load_task(tabular_task), RunConfig(backend="openai"), tmp_path / "run"
        )
        make(0).check_novelty(NB, "another reference")  # type: ignore[attr-defined]
        assert srv.requests[1].body["max_tokens"] == 700
