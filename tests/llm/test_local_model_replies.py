"""Replies written the way local models and servers answer (found against a fake
OpenAI-compatible server speaking the real wire format, then pinned here at the parser level):

- reasoning models (Qwen3, DeepSeek-R1 on Ollama) think in ``<think>…</think>`` first: a longer
  draft inside it was taken for the code, an example JSON inside it for the answer, and the
  planner's text kept the whole thought;
- an untagged block of expected output after the ```python block was taken for the code;
- end-of-turn tokens a server let through (``<|im_end|>``) made valid code unusable;
- a notebook's JSON (or ``{"code": …}``) parses as a Python dict literal and ran as "code";
- JSON written loosely (raw newlines in strings, trailing commas, a Python dict) was refused;
- "not novel" read as Novel; an extractor's ``"b2 (model)"`` or fenced ``code_block`` refused."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.roles import novelty, summarize
from mlestar_jupyter.agent.roles.base import Role
from mlestar_jupyter.agent.roles.extractor import resolve_target
from mlestar_jupyter.llm import ReplyFormatError, extract_code, parse_json
from mlestar_jupyter.notebook import SolutionNotebook

CODE = "import pandas as pd\ndf = pd.read_csv('input/train.csv')\nprint(df.shape)\n"


@pytest.mark.parametrize(
    "reply",
    [
        # a longer draft inside the thoughts, the answer after them
        "<think>\nA first try:\n```python\n"
        + CODE * 3
        + "```\nNo, shorter.\n</think>\n\n```python\n"
        + CODE
        + "```",
        # no fence after the thoughts
        "<think>Let me write it.</think>\n\n" + CODE,
        # the server dropped the opening tag
        "okay, the data is a csv ...\n</think>\n```python\n" + CODE + "```",
        # expected output after the code, untagged
        "```python\n" + CODE + "```\nExpected output:\n```\n(569, 32)\nFinal Validation "
        "Performance: 0.99 and a longer line of log output to be longer than the code\n```",
        # an end-of-turn token after the fence, or inside it
        "```python\n" + CODE + "```<|im_end|>",
        "```python\n" + CODE + "<|endoftext|>```",
        # a fence indented inside a list item
        "1. The code:\n\n   ```python\n   import pandas as pd\n   df = pd.read_csv('input/train.csv')"
        "\n   print(df.shape)\n   ```",
    ],
)
def test_the_code_after_the_reasoning_is_the_answer(reply: str) -> None:
    assert extract_code(reply) == CODE


def test_an_answer_that_is_only_reasoning_says_so() -> None:
    with pytest.raises(ReplyFormatError, match="only reasoning"):
        extract_code("<think>\nThe notebook needs a model, so first I")  # cut off while thinking


@pytest.mark.parametrize(
    "reply",
    [
        '{"cells": [{"cell_type": "code", "source": ["import pandas as pd"]}], "nbformat": 4}',
        '```python\n{"code": "import pandas as pd"}\n```',
    ],
)
def test_a_data_literal_is_not_code(reply: str) -> None:
    with pytest.raises(ReplyFormatError, match="data literal"):
        extract_code(reply)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        (
            '<think>an example: {"leakage": true, "reason": "the model sees validation rows, '
            'which is a long made-up reason"}</think>\n{"leakage": false}',
            {"leakage": False},
        ),
        (
            '{"code_block": "X = df[cols]\ny = df.y", "plan": "p"}',
            {"code_block": "X = df[cols]\ny = df.y", "plan": "p"},
        ),
        ('{"models": ["a", "b",], "why": "x",}', {"models": ["a", "b"], "why": "x"}),
        ("Here it is: {'leakage': False, 'reason': None}", {"leakage": False, "reason": None}),
    ],
)
def test_loosely_written_json_is_read(reply: str, value: object) -> None:
    assert parse_json(reply) == value


def test_a_planners_text_answer_leaves_its_thoughts_out() -> None:
    role = Role("planner", "text")
    reply = "<think>\nOkay, the ablation says the model matters.\n</think>\n\nUse C=0.3 instead."
    assert role.parse(reply) == "Use C=0.3 instead."


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Novel", "Novel"),
        ("Same", "Same"),
        ("The solution is not novel; it is the Same as the reference.", "Same"),
        ("<think>Is it Novel? It copies the reference.</think>\nSame", "Same"),
        ("It is not the same as the reference: Novel.", "Novel"),
    ],
)
def test_the_novelty_verdict_is_the_one_given(reply: str, verdict: str) -> None:
    assert novelty.ROLE.parse(reply) == verdict


@pytest.mark.parametrize("block_id", ["b2", "b2 (model)", "[b2]", "B2"])
def test_the_extractors_block_is_read_as_the_notebook_names_it(block_id: str) -> None:
    nb = SolutionNotebook.new([("load", "x = 1"), ("model", "m = Ridge(alpha=1.0)\nm.fit(X, y)")])
    target = resolve_target(nb, block_id, "```python\nm = Ridge(alpha=1.0)\n```", "plan")
    assert target.block_id == "b2" and target.fragment == "m = Ridge(alpha=1.0)"


@pytest.mark.parametrize(
    "reply",
    [
        "```python\nIn [1]: import pandas as pd\nIn [2]: df = pd.read_csv('input/train.csv')\n"
        "In [3]: print(df.shape)\n```",
        "```python\n>>> import pandas as pd\n>>> df = pd.read_csv('input/train.csv')\n"
        ">>> print(df.shape)\n```",
    ],
)
def test_a_console_transcript_is_read_as_its_code(reply: str) -> None:
    assert extract_code(reply) == CODE


# ---------------------------------------------------------------------- one notebook, several blocks

CELLS = (
    "Here is the notebook.\n\n### Cell 1\n```python\nimport pandas as pd\n```\n\n"
    "### Cell 2\n```python\ndf = pd.read_csv('input/train.csv')\n```\n\n"
    "### Cell 3: a look at the data\n```python\nprint(df.shape)\n```\n"
)
JOINED = "import pandas as pd\n\ndf = pd.read_csv('input/train.csv')\n\nprint(df.shape)\n"


@pytest.mark.parametrize(
    "reply",
    [
        CELLS,
        CELLS.replace("### Cell", "**Cell").replace(": a look", " - a look"),
        # no headings: each block uses what the ones before it define
        "First the data:\n```python\nimport pandas as pd\ndf = pd.read_csv('input/train.csv')\n"
        "```\nThen its size:\n```python\nprint(df.shape)\n```",
    ],
)
def test_consecutive_cells_sent_as_several_blocks_are_one_program(reply: str) -> None:
    """Only the longest block was kept: 'df' or 'pd' undefined in the notebook that ran."""
    code = extract_code(reply)
    assert code.replace("\n\n", "\n") == JOINED.replace("\n\n", "\n")


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        (  # two alternatives, each whole on its own
            "Option 1:\n```python\nimport pandas as pd\nprint(pd.__version__)\n```\nOr with numpy:"
            "\n```python\nimport numpy as np\nprint(np.__version__, np.ones(3))\n```",
            "import numpy as np\nprint(np.__version__, np.ones(3))\n",
        ),
        (  # the changed line, then the whole program
            "Change this line:\n```python\nmodel = Ridge(alpha=0.3)\n```\nThe full code:\n"
            "```python\nfrom sklearn.linear_model import Ridge\nmodel = Ridge(alpha=0.3)\n"
            "model.fit(X, y)\n```",
            "from sklearn.linear_model import Ridge\nmodel = Ridge(alpha=0.3)\nmodel.fit(X, y)\n",
        ),
        (  # the program, then an excerpt of it
            "```python\n" + CODE + "```\nThe key line is:\n```python\nprint(df.shape)\n```",
            CODE,
        ),
        (  # another way, offered instead
            "```python\n" + CODE + "```\nInstead, you could read it with:\n```python\n"
            "df = pd.read_parquet('input/train.parquet')\n```",
            CODE,
        ),
    ],
)
def test_alternative_blocks_are_not_joined(reply: str, kept: str) -> None:
    assert extract_code(reply) == kept


# ---------------------------------------------------------------------- pasted from a chat UI


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (
            "```python\nimport pandas as pd\ndf = pd.read_csv(\u2018input/train.csv\u2019)\n"
            "print(df.shape)\n```",
            CODE,
        ),
        (
            "import pandas as pd\ndf = pd.read_csv(\u201cinput/train.csv\u201d)\nprint(df.shape)",
            CODE.replace("'", '"'),
        ),
        (
            "```python\ndef f(x):\n\u00a0\u00a0\u00a0\u00a0return x\u00a0+\u00a01\nprint(f(1))\n```",
            "def f(x):\n    return x + 1\nprint(f(1))\n",
        ),
        (  # a curly string holding a straight quote; a straight one holding curly quotes
            '```python\nprint(\u201csay "hi"\u201d)\nmsg = "it\u2019s \u201cfine\u201d"\n```',
            'print(\'say "hi"\')\nmsg = "it\u2019s \u201cfine\u201d"\n',
        ),
    ],
)
def test_curly_quotes_and_no_break_spaces_are_made_plain(reply: str, code: str) -> None:
    assert extract_code(reply) == code


@pytest.mark.parametrize(
    "body",
    [
        "msg = 'say \u201chi\u201d'\nprint(msg)\n",  # valid as it is: the quotes are text
        "print(\u201cnever closed)\n",  # no repair makes it parse: left for the syntax check
    ],
)
def test_code_is_left_alone_unless_only_the_repair_makes_it_parse(body: str) -> None:
    assert extract_code("```python\n" + body + "```") == body


# ---------------------------------------------------------------------- the summarizer's scores


@pytest.mark.parametrize(
    ("metric", "score", "read"),
    [
        ("accuracy", '"95.2%"', 0.952),
        ("roc_auc", '"95.2 %"', 0.952),
        ("rmse", '"12.5%"', 12.5),  # not a fraction: the number as written
        ("accuracy", '"0.95"', 0.95),
        ("accuracy", '"n/a"', None),
        ("accuracy", "0.9", 0.9),
    ],
)
def test_the_summarizers_scores_are_read_for_the_metric(metric: str, score: str, read) -> None:
    reply = f'{{"summary": "s", "results": [{{"name": "no scaling", "score": {score}}}]}}'
    [item] = summarize.parse(reply, metric).results
    assert item.score == (pytest.approx(read) if read is not None else None)


def test_a_score_that_is_no_number_is_still_refused() -> None:
    with pytest.raises(ReplyFormatError, match="score") as ei:
        summarize.parse('{"summary": "s", "results": [{"name": "a", "score": "good"}]}', "f1")
    assert '"good"' in ei.value.raw
