"""Reading a model's answer as text or as code: its reasoning left out (``final_answer``), the
Python code picked out of its fenced blocks (``extract_code``), and the syntax check that sends
code that does not parse back to the model (``check_syntax``).  ``structured`` asks and re-asks
with these; its JSON reading shares the fences and the reasoning filter.
"""

from __future__ import annotations

import ast
import re

from .code_repair import has_pasted_characters, joined_cells, parses, straightened, without_magics
from .errors import ReplyFormatError

PYTHON_LANGS = {"", "python", "py", "python3", "py3", "ipython", "ipython3"}
FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE
)
_OPENFENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+.-]*)[^\n]*\n", re.MULTILINE)


# a reasoning model's thoughts before its answer (Qwen3 and DeepSeek-R1 on Ollama, ...)
_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_REASONING_TAIL = re.compile(r"^.*?</(?:think|thinking|reasoning)\s*>", re.IGNORECASE | re.DOTALL)
_REASONING_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)
# end-of-turn tokens a server let through (ChatML, Llama 3, Gemma, ...)
_SPECIAL_TOKENS = re.compile(r"<\|[A-Za-z0-9_]+\|>|</s>|<end_of_turn>|<start_of_turn>(?:model)?")


def final_answer(text: str) -> str:
    """``text`` without a reasoning model's thoughts (``<think>…</think>``, a closing tag whose
    opening the server left out, an opening never closed: cut off while thinking) and without
    end-of-turn tokens a server let through (``<|im_end|>``, ``<|eot_id|>``, ``</s>``)."""
    out = _REASONING.sub("", text)
    tail = _REASONING_TAIL.match(out)
    if tail is not None:
        out = out[tail.end() :]
    opened = _REASONING_OPEN.search(out)
    if opened is not None:
        out = out[: opened.start()]
    return _SPECIAL_TOKENS.sub("", out)


def only_reasoning(text: str) -> bool:
    """Whether ``text`` holds reasoning and no answer after it."""
    return bool(text.strip()) and not final_answer(text).strip()


def extract_code(text: str) -> str:
    """The Python code in a model's answer (its reasoning left out: ``final_answer``).

    The longest fenced block tagged ``python``/``py`` wins, else the longest untagged block that
    parses (an untagged block of output or logs beside the code is not code); several blocks
    that are consecutive cells of one program (``### Cell 1``, ``### Cell 2`` …, or each using
    what an earlier one defines) are joined in order instead (``code_repair.joined_cells``).  A
    block left open at the end of the answer counts if it parses.  An answer without fences is
    accepted when it parses as Python and is more than a bare word or a data literal (a
    notebook's JSON, a ``{"code": ...}`` object).  Curly quotes and non-breaking spaces pasted
    by a chat UI are made plain where only that makes the code parse.  Raises
    ``ReplyFormatError`` when there is no code or the chosen block is empty."""
    if only_reasoning(text):
        raise ReplyFormatError(
            "the answer holds only reasoning (a <think> block and no answer after it)",
            raw=text,
            hint="after your reasoning, answer with the complete code in one ```python block",
        )
    raw, text = text, final_answer(text)
    blocks = _fenced_blocks(text)
    if not blocks:
        opened = _OPENFENCE.search(text)
        if opened is not None and opened.group(2).lower() in PYTHON_LANGS:
            body = _as_code(text[opened.end() :].rstrip().rstrip("`").rstrip(), dedent=False)
            if body.strip() and parses(body):
                return _tidy(body)
    tagged = [(before, body) for lang, before, body in blocks if lang and lang in PYTHON_LANGS]
    untagged = [(before, body) for lang, before, body in blocks if not lang]
    python = tagged or [b for b in untagged if parses(b[1])] or untagged
    if python:
        best = joined_cells(python) or max((b for _, b in python), key=lambda b: len(b.strip()))
        if not best.strip():
            raise ReplyFormatError(
                "the code block in the answer is empty",
                raw=raw,
                hint="answer with the complete code in one ```python block",
            )
        if parses(best) and _is_data(best):
            raise _data_not_code(raw)
        return _tidy(best)
    if blocks:
        langs = ", ".join(sorted({lang or "untagged" for lang, _, _ in blocks}))
        raise ReplyFormatError(
            f"the answer has code blocks ({langs}) but none in Python",
            raw=raw,
            hint="answer with the code in one ```python block",
        )
    stripped = _as_code(text.strip(), dedent=False)
    if stripped and parses(stripped) and _is_data(stripped):
        raise _data_not_code(raw)
    if stripped and parses(stripped) and _looks_like_code(stripped):
        return _tidy(stripped)
    raise ReplyFormatError(
        "no Python code block found in the answer",
        raw=raw,
        hint="answer with the complete code in one ```python block",
    )


def _fenced_blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, prose since the previous block, code) of each fenced block in ``text``; the
    code as ``_as_code`` reads it."""
    out = []
    after = 0  # where the previous block ended
    for m in FENCE.finditer(text):
        out.append((m.group(2).lower(), text[after : m.start()], _as_code(m.group(3))))
        after = m.end()
    return out


def _as_code(block: str, *, dedent: bool = True) -> str:
    """A block as code: dedented (``_dedented``); with its curly quotes and non-breaking spaces
    made plain (``code_repair.straightened``) when it does not parse as it is and does then
    (as more than a string: quoted prose is not code)."""
    tidy = _dedented if dedent else (lambda s: s)
    code = tidy(block)
    if parses(code) or not has_pasted_characters(block):
        return code
    fixed = tidy(straightened(block))
    return fixed if parses(fixed) and _looks_like_code(fixed) else code


def _dedented(block: str) -> str:
    """A block as code: the indentation of a fence inside a list item taken off, and the
    prompts of a console transcript (``In [1]:``, ``>>>``, ``...``) when every code line has one."""
    import textwrap

    code = textwrap.dedent(block)
    lines = [ln for ln in code.splitlines() if ln.strip()]
    for prompt in (_IPYTHON_PROMPT, _REPL_PROMPT):
        if (
            lines
            and all(prompt.match(ln) or ln.startswith(" ") for ln in lines)
            and any(prompt.match(ln) for ln in lines)
        ):
            return "\n".join(prompt.sub("", ln, count=1) for ln in code.splitlines())
    return code


_IPYTHON_PROMPT = re.compile(r"^(?:In \[\d*\]: ?|   \.{3,}: ?)")
_REPL_PROMPT = re.compile(r"^(?:>>> ?|\.\.\. ?)")


def _is_data(code: str) -> bool:
    """Only a literal (a notebook's JSON, ``{"code": "..."}``, a list): data, not code."""
    tree = ast.parse(without_magics(code))
    return len(tree.body) == 1 and (
        isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Dict | ast.List | ast.Set | ast.Tuple)
    )


def _data_not_code(raw: str) -> ReplyFormatError:
    return ReplyFormatError(
        "the answer is a data literal (a notebook's JSON or a JSON object), not Python code",
        raw=raw,
        hint="answer with the notebook's code as a plain Python script in one ```python block",
    )


def _tidy(code: str) -> str:
    return code.strip("\n").rstrip() + "\n"


def _looks_like_code(code: str) -> bool:
    """More than a bare name or constant (``hello`` parses as Python but is not code)."""
    tree = ast.parse(without_magics(code))
    return any(
        not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Name | ast.Constant))
        for s in tree.body
    )


def check_syntax(code: str) -> None:
    """Raise ``ReplyFormatError`` quoting the line when ``code`` is not valid Python (magics allowed)."""
    try:
        ast.parse(without_magics(code))
    except SyntaxError as e:
        line = (e.text or "").rstrip()
        raise ReplyFormatError(
            f"the code does not parse: {e.msg} at line {e.lineno}: {line!r}",
            raw=code,
            hint="fix the syntax error and answer with the whole code again",
        ) from None
