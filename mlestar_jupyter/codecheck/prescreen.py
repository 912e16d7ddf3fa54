"""Check generated code before it costs an execution: syntax, modules that are not installed, names
a module does not have (repaired when the intended one is clear), missing imports (repaired), calls
the installed library versions refuse (rewritten).  Returns the (possibly repaired) code and a problem to send back, or None."""

from __future__ import annotations

import ast
from collections.abc import Collection

from .api_drift import repair_api_drift
from .import_names import bad_imports, repair_import_names
from .static_checks import repair_imports, unavailable_imports


def prescreen(code: str, local: Collection[str] = ()) -> tuple[str, str | None]:
    """``(code, None)`` when runnable as far as a static look can tell; else ``(code, reason)``
    (``local``: modules the kernels import from the task's data, not to be called missing)."""
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return code, f"SyntaxError on line {e.lineno}: {e.msg}. Answer with complete, valid Python."
    if not tree.body:  # only comments: a small model echoing the prompt's heading
        return code, "the answer holds no code, only comments. Answer with the complete program."
    missing = unavailable_imports(code, local)
    if missing:
        return (
            code,
            f"these modules are not installed: {', '.join(missing)}. Use only packages from the environment list.",
        )
    code, bad = repair_import_names(code, bad_imports(code))
    if bad:
        return (
            code,
            "; ".join(b.describe() for b in bad)
            + ". Import only names that exist in the installed versions listed in the environment.",
        )
    fixed, _ = repair_api_drift(repair_imports(code))
    if "exit(" in fixed and any(
        isinstance(n, ast.Call)
        and getattr(n.func, "id", getattr(n.func, "attr", "")) in ("exit", "quit")
        for n in ast.walk(ast.parse(fixed))
    ):
        return fixed, "the code calls exit()/quit(); remove it so the notebook runs to the end."
    return fixed, None
