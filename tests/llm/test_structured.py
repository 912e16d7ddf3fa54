"""extract_code, parse_json and the re-asking helpers."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, TypeAdapter

from mlestar_jupyter.llm import (
    LLMRequest,
    ReplyFormatError,
    SearchUnavailable,
    Truncated,
    Unavailable,
    extract_code,
    generate_code,
    generate_json,
    generate_text,
    generate_with_search,
    parse_json,
)

from .fake_server import Reply


class Model(BaseModel):
    model_name: str
    example_code: str


# ----------------------------------------------------------------------------- extract_code


def test_extract_code_python_fence_with_prose():
    text = "Here is the fix:\n```python\nimport numpy as np\nx = np.ones(3)\n```\nIt adds x."
    assert extract_code(text) == "import numpy as np\nx = np.ones(3)\n"


@pytest.mark.parametrize("tag", ["python", "py", "Python3", "", "python title='a.py'"])
def test_extract_code_accepted_tags(tag):
    assert extract_code(f"```{tag}\nprint(1)\n```") == "print(1)\n"


def test_extract_code_multiple_blocks_longest_wins():
    text = "```python\nprint(1)\n```\nand the full one\n```py\nimport os\nprint(os.getcwd())\n```\n```bash\npip install a-very-long-package-name-that-is-longer\n```"
    assert extract_code(text) == "import os\nprint(os.getcwd())\n"


def test_extract_code_keeps_indentation_and_inner_backticks():
    text = '```python\n    x = 1\ns = "``` not a fence"\n```'
    assert extract_code(text) == '    x = 1\ns = "``` not a fence"\n'


def test_extract_code_empty_block_rejected():
    with pytest.raises(ReplyFormatError, match="empty") as ei:
        extract_code("```python\n\n```")
    assert ei.value.raw == "```python\n\n```"


def test_extract_code_only_other_languages_rejected():
    with pytest.raises(ReplyFormatError, match="bash"):
        extract_code("```bash\nls -la\n```")


def test_extract_code_without_fences():
    assert (
        extract_code("import pandas as pd\ndf = pd.read_csv('train.csv')\n")
        == "import pandas as pd\ndf = pd.read_csv('train.csv')\n"
    )
    with pytest.raises(ReplyFormatError, match="no Python code"):
        extract_code("I would use a gradient boosting model here.")
    with pytest.raises(ReplyFormatError):
        extract_code("hello")  # parses as a bare name, but is no code
    with pytest.raises(ReplyFormatError):
        extract_code("")


def test_extract_code_unclosed_fence_at_end():
    assert extract_code("Sure:\n```python\nx = 1\ny = 2\n") == "x = 1\ny = 2\n"


def test_extract_code_tilde_fence_and_magics():
    assert (
        extract_code("~~~python\n%matplotlib inline\nx = 1\n~~~") == "%matplotlib inline\nx = 1\n"
    )


# ----------------------------------------------------------------------------- parse_json


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  [1, 2]\n", [1, 2]),
        ('```json\n{"a": [1, {"b": 2}]}\n```', {"a": [1, {"b": 2}]}),
        ('Sure! Here it is:\n```\n{"a": 1}\n```\nHope that helps.', {"a": 1}),
        ('The answer is {"a": {"b": "}"}} as requested. {"c": 1}', {"a": {"b": "}"}}),
        ('prefix [{"x": 1}, {"x": 2}] suffix', [{"x": 1}, {"x": 2}]),
    ],
)
def test_parse_json(text, value):
    assert parse_json(text) == value


@pytest.mark.parametrize("text", ["no json here", '{"a": 1', "", "```json\n{broken}\n```"])
def test_parse_json_rejects(text):
    with pytest.raises(ReplyFormatError) as ei:
        parse_json(text)
    assert ei.value.raw == text


def test_parse_json_with_model_validates():
    got = parse_json('[{"model_name": "lgbm", "example_code": "x"}]', list[Model])
    assert got == [Model(model_name="lgbm", example_code="x")]
    with pytest.raises(ReplyFormatError, match="model_name"):
        parse_json('[{"example_code": "x"}]', list[Model])


def test_an_answer_that_echoes_the_schema_shape_is_read_from_its_properties():
    class Leak(BaseModel):
        leakage: bool
        reason: str = ""

    # what Qwen2.5-Coder-1.5B answered through llama.cpp's json_object mode
    echoed = (
        '{"properties": {"leakage": false, "reason": "no test data used"},'
        ' "required": ["leakage"], "title": "Leak", "type": "object"}'
    )
    assert parse_json(echoed, Leak) == Leak(leakage=False, reason="no test data used")
    with pytest.raises(ReplyFormatError, match="leakage"):  # not a schema echo: still an error
        parse_json('{"properties": {"leakage": false}}', Leak)


# ----------------------------------------------------------------------------- re-asking


@pytest.mark.parametrize("backend", ["gemini", "openai"])
def test_generate_json_reasks_with_the_error_quoted(fake_llm, make_client, backend):
    fake_llm.script(
        "I think LightGBM.",
        '{"model_name": "lgbm"}',
        '{"model_name": "lgbm", "example_code": "import lightgbm"}',
    )
    got = generate_json(
        make_client(backend), LLMRequest.of("which model?", role="retriever"), Model
    )
    assert got == Model(model_name="lgbm", example_code="import lightgbm")
    first, second, third = fake_llm.requests
    assert first.schema is not None and set(first.schema["properties"]) == {
        "model_name",
        "example_code",
    }
    assert second.messages[-2] == ("assistant", "I think LightGBM.")
    assert "no JSON value found" in second.messages[-1][1]
    assert third.messages[:-2] == first.messages  # only the latest failure is quoted
    assert (
        "example_code" in third.messages[-1][1]
        and third.messages[-2][1] == '{"model_name": "lgbm"}'
    )


def test_generate_json_gives_up_with_the_raw_reply(fake_llm, make_client):
    fake_llm.script("nope 1", "nope 2")
    with pytest.raises(ReplyFormatError, match="after 1 re-asks") as ei:
        generate_json(make_client("openai"), "q", Model, max_reasks=1)
    assert ei.value.raw == "nope 2" and len(fake_llm.requests) == 2


def test_generate_json_type_adapter_and_list(fake_llm, make_client):
    fake_llm.script('[{"model_name": "a", "example_code": "b"}]')
    assert generate_json(make_client("gemini"), "q", TypeAdapter(list[Model]))[0].model_name == "a"
    assert fake_llm.requests[0].generation_config["responseSchema"]["type"] == "ARRAY"


def test_generate_json_through_llama_cpp_style_fallback(make_client, fake_llm):
    fake_llm.reject_json_schema = True
    fake_llm.script('```json\n{"model_name": "a", "example_code": "b"}\n```')
    assert generate_json(make_client("openai"), "q", Model).model_name == "a"
    assert [r.response_format for r in fake_llm.requests] == ["json_schema", "json_object"]


def test_generate_json_reasks_after_truncation(fake_llm, make_client):
    fake_llm.script(
        Reply.truncated('{"model_name": "a", "exa'), '{"model_name": "a", "example_code": "b"}'
    )
    assert generate_json(make_client("gemini"), "q", Model).example_code == "b"
    assert "cut off" in fake_llm.requests[1].prompt


def test_truncation_every_time_raises_truncated(fake_llm, make_client):
    fake_llm.script(Reply.truncated(), Reply.truncated())
    with pytest.raises(Truncated):
        generate_code(make_client("openai"), "q", max_reasks=1)


def test_generate_code_reasks_on_syntax_error_and_empty_block(fake_llm, make_client):
    fake_llm.script(
        "```python\n```",
        "```python\ndef f(:\n    pass\n```",
        "```python\ndef f(x):\n    return x\n```",
    )
    assert (
        generate_code(make_client("openai"), "write f", max_reasks=2) == "def f(x):\n    return x\n"
    )
    assert (
        "empty" in fake_llm.requests[1].prompt and "does not parse" in fake_llm.requests[2].prompt
    )


def test_infrastructure_errors_are_not_reasked(fake_llm, make_client):
    fake_llm.script(*[Reply.unavailable()] * 4)
    with pytest.raises(Unavailable):
        generate_json(make_client("openai"), "q", Model)
    # the json_schema probe (no SDK retries), then 1 + 2 SDK retries of the same request; no re-asks
    assert len(fake_llm.requests) == 4
    assert all(
        r.messages == [("user", "q")] and r.response_format == "json_schema"
        for r in fake_llm.requests
    )


def test_generate_text(fake_llm, make_client):
    fake_llm.script("plain answer", "   ")
    c = make_client("openai")
    assert generate_text(c, "q", system="s", temperature=0.2, role="summarize") == "plain answer"
    assert fake_llm.requests[0].system == "s" and fake_llm.requests[0].body["temperature"] == 0.2
    with pytest.raises(ReplyFormatError, match="empty"):
        generate_text(c, "another")


def test_generate_with_search(fake_llm, make_client):
    fake_llm.script(Reply(text="Use CatBoost", sources=(("https://catboost.ai", "CatBoost"),)))
    text, sources = generate_with_search(make_client("gemini"), "tabular models 2025")
    assert text == "Use CatBoost" and sources[0].uri == "https://catboost.ai"
    assert fake_llm.requests[0].wants_search


def test_generate_with_search_on_openai_raises_search_unavailable(fake_llm, make_client):
    with pytest.raises(SearchUnavailable):
        generate_with_search(make_client("openai"), "q")
    assert fake_llm.requests == []
