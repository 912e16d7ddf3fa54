"""Rewrite calls that older library versions accepted and the installed ones refuse.

Models learn from years of examples, so they write ``LGBMClassifier.fit(..., verbose=False,
early_stopping_rounds=50)`` (gone in LightGBM 4), ``XGBClassifier.fit(..., early_stopping_rounds=)``
(moved to the constructor in XGBoost 2), ``mean_squared_error(..., squared=False)`` (gone in
scikit-learn 1.6), ``OneHotEncoder(sparse=False)`` (renamed in 1.2, gone in 1.4) and
``df = df.append(other)`` (gone in pandas 2).  Each such
call costs a failed execution and a debugger round; this fixes them before the code runs, and
only when the installed version is one that refuses the old form.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
from collections.abc import Callable

from ..notebook.spans import node_span, replace_spans
from .static_checks import _call_name as _callee

Edit = tuple[ast.Call, ast.Call]  # (call in the source, its replacement)


def repair_api_drift(source: str) -> tuple[str, list[str]]:
    """``source`` with outdated calls rewritten for the installed versions, and one note per fix."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    source, notes = _xgboost_gpu(source, tree)
    if notes:  # the other rules read the settings' current form
        tree = ast.parse(source)
    constructed = _constructed_names(tree)
    edits: list[Edit] = []
    extra_imports: set[str] = set()
    for rule in _RULES:
        rule(tree, constructed, edits, notes, extra_imports)
    if not edits:
        return source, notes
    out = _apply(source, edits)
    present = {line.strip() for line in out.splitlines()}
    for line in sorted(extra_imports):
        if line not in present:
            out = f"{line}\n{out}"
    return out, notes


# --------------------------------------------------------------------------- rules
def _lightgbm_fit(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    if _major("lightgbm") < 4:
        return
    for call in _method_calls(tree, "fit", made, "LGBM"):
        done = _lightgbm_rewrite(call, ("verbose", "verbose_eval"), "eval_set", imports)
        if done is not None:
            edits.append((call, done[0]))
            notes.append(
                f"LightGBM 4 fit() takes no {', '.join(done[1])}: rewritten (early stopping is a callback)"
            )


def _lightgbm_train(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    """``lgb.train(..., early_stopping_rounds=, verbose_eval=)``: both gone in LightGBM 4."""
    if _major("lightgbm") < 4:
        return
    aliases = _module_aliases(tree, "lightgbm")
    for call in ast.walk(tree):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("train", "cv")
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in aliases
        ):
            continue
        done = _lightgbm_rewrite(call, ("verbose_eval",), None, imports)
        if done is not None:
            edits.append((call, done[0]))
            notes.append(
                f"LightGBM 4 {call.func.attr}() takes no {', '.join(done[1])}: rewritten (early stopping is a callback)"
            )


def _lightgbm_rewrite(
    call: ast.Call, drop: tuple[str, ...], stop_needs: str | None, imports: set[str]
) -> tuple[ast.Call, list[str]] | None:
    """``call`` without the keywords LightGBM 4 refuses (``drop`` and ``early_stopping_rounds``),
    early stopping turned into ``callbacks=[lightgbm.early_stopping(n)]`` (when the call has
    ``stop_needs``, e.g. an ``eval_set``); None when it has none of them."""
    kw = {k.arg: k for k in call.keywords if k.arg}
    gone = [k for k in (*drop, "early_stopping_rounds") if k in kw]
    if not gone:
        return None
    new = _copy(call)
    new.keywords = [k for k in new.keywords if k.arg not in gone]
    rounds = kw.get("early_stopping_rounds")
    if rounds is not None and "callbacks" not in kw and (stop_needs is None or stop_needs in kw):
        stop = ast.parse(
            f"lightgbm.early_stopping({ast.unparse(rounds.value)}, verbose=False)", mode="eval"
        ).body
        new.keywords.append(ast.keyword("callbacks", ast.List([stop], ast.Load())))
        imports.add("import lightgbm")
    return new, gone


def _module_aliases(tree: ast.Module, module: str) -> set[str]:
    """Names ``module`` is imported as (``import lightgbm as lgb`` → {"lgb"})."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.asname or a.name for a in node.names if a.name == module}
    return out


def _xgboost_fit(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    if _major("xgboost") < 2:
        return
    ctor_calls = _constructor_calls(tree, "XGB")
    for call in _method_calls(tree, "fit", made, "XGB"):
        kw = {k.arg: k for k in call.keywords if k.arg}
        moved = [k for k in ("early_stopping_rounds", "eval_metric", "callbacks") if k in kw]
        if not moved:
            continue
        new = _copy(call)
        new.keywords = [k for k in new.keywords if k.arg not in moved]
        edits.append((call, new))
        receiver = (
            call.func.value.id
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
            else ""
        )
        ctor = ctor_calls.get(receiver)
        keep = [m for m in moved if m != "early_stopping_rounds" or "eval_set" in kw]
        if ctor is not None and keep:
            new_ctor = _copy(ctor)
            have = {k.arg for k in new_ctor.keywords}
            new_ctor.keywords += [kw[m] for m in keep if m not in have]
            edits.append((ctor, new_ctor))
            notes.append(f"XGBoost 2 takes {', '.join(keep)} in the constructor, not fit(): moved")
        else:
            notes.append(f"XGBoost 2 fit() takes no {', '.join(moved)}: removed")


def _xgboost_gpu(source: str, tree: ast.Module) -> tuple[str, list[str]]:
    """XGBoost's GPU settings in the form XGBoost 2 takes (``device``): ``tree_method=
    'gpu_hist'`` (refused since 3.0) → ``'hist'`` with ``device='cuda'``, ``gpu_id=N`` (removed
    in 3.1) → ``device='cuda:N'``, as keywords, dict entries (``params`` for ``xgb.train``) or
    ``params['gpu_id'] = N``.  The text is edited in place (a multi-line dict keeps its lines and
    comments); on a machine without a GPU, XGBoost trains ``device='cuda'`` on the CPU with a
    warning.  A call or dict already naming ``device`` keeps it."""
    if _major("xgboost") < 2 or ("gpu_hist" not in source and "gpu_id" not in source):
        return source, []
    spans: list[tuple[int, int, str]] = []
    told: dict[int, set[str]] = {}  # a dict splatted into a call: the call's keywords
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for k in node.keywords:
                if k.arg is None and isinstance(k.value, ast.Dict):
                    told[id(k.value)] = {w.arg for w in node.keywords if w.arg}
    for node in ast.walk(tree):
        pairs: list[tuple[str, ast.AST, ast.expr, bool]] = []  # (name, start node, value, dict?)
        if isinstance(node, ast.Call):
            pairs = [(k.arg, k, k.value, False) for k in node.keywords if k.arg]
        elif isinstance(node, ast.Dict):
            pairs = [
                (k.value, k, v, True)
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                spans += _gpu_item(source, node, target, node.value)
            continue
        names = {name for name, *_ in pairs} | told.get(id(node), set())
        for name, start, value, in_dict in pairs:
            spans += _gpu_pair(source, name, start, value, in_dict, names)
    if not spans:
        return source, []
    return replace_spans(source, spans), [
        "XGBoost 2 names the GPU by device='cuda' (tree_method='gpu_hist' and gpu_id are "
        "gone in XGBoost 3): rewritten"
    ]


def _gpu_pair(
    source: str, name: str, start: ast.AST, value: ast.expr, in_dict: bool, names: set[str]
) -> list[tuple[int, int, str]]:
    """The span edit for one keyword or dict entry ``name``/``value`` (``_xgboost_gpu``)."""
    where, whole = node_span(source, value), node_span(source, start)
    if where is None or whole is None:
        return []
    q = source[where[0]] if source[where[0]] in "'\"" else "'"
    device = f"{q}device{q}: " if in_dict else "device="
    if name == "tree_method" and isinstance(value, ast.Constant) and value.value == "gpu_hist":
        more = "" if names & {"device", "gpu_id"} else f", {device}{q}cuda{q}"
        return [(*where, f"{q}hist{q}{more}")]
    if name == "gpu_id" and "device" not in names:
        n = value.value if isinstance(value, ast.Constant) else None
        cuda = f"{q}cuda:{n}{q}" if isinstance(n, int) and n >= 0 else f"{q}cuda{q}"
        return [(whole[0], where[1], f"{device}{cuda}")]
    return []


def _gpu_item(
    source: str, stmt: ast.Assign, target: ast.Subscript, value: ast.expr
) -> list[tuple[int, int, str]]:
    """``params['gpu_id'] = N`` → ``params['device'] = 'cuda:N'``; ``params['tree_method'] =
    'gpu_hist'`` → ``'hist'`` (``_xgboost_gpu``)."""
    key = target.slice.value if isinstance(target.slice, ast.Constant) else None
    where, key_at = node_span(source, value), node_span(source, target.slice)
    if where is None or key_at is None:
        return []
    if key == "tree_method" and isinstance(value, ast.Constant) and value.value == "gpu_hist":
        q = source[where[0]]
        return [(*where, f"{q}hist{q}")]
    if key == "gpu_id":
        q = source[key_at[0]]
        n = value.value if isinstance(value, ast.Constant) else None
        cuda = f"cuda:{n}" if isinstance(n, int) and n >= 0 else "cuda"
        return [(*key_at, f"{q}device{q}"), (*where, f"{q}{cuda}{q}")]
    return []


def _sklearn_metrics(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    if _version("scikit-learn") < (1, 6):
        return
    for call in _function_calls(tree, "mean_squared_error"):
        squared = next((k for k in call.keywords if k.arg == "squared"), None)
        if squared is None:
            continue
        new = _copy(call)
        new.keywords = [k for k in new.keywords if k.arg != "squared"]
        if isinstance(squared.value, ast.Constant) and squared.value.value is False:
            if isinstance(new.func, ast.Attribute):
                new.func.attr = "root_mean_squared_error"
            else:
                new.func = ast.Name("root_mean_squared_error", ast.Load())
                imports.add("from sklearn.metrics import root_mean_squared_error")
        edits.append((call, new))
        notes.append(
            "scikit-learn 1.6 removed mean_squared_error(squared=False): root_mean_squared_error"
        )


def _sklearn_onehot(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    if _version("scikit-learn") < (1, 4):
        return
    for call in _function_calls(tree, "OneHotEncoder"):
        if any(k.arg == "sparse" for k in call.keywords):
            new = _copy(call)
            for k in new.keywords:
                if k.arg == "sparse":
                    k.arg = "sparse_output"
            edits.append((call, new))
            notes.append("scikit-learn 1.4 renamed OneHotEncoder(sparse=) to sparse_output=")


def _pandas_append(
    tree: ast.Module, made: dict[str, str], edits: list[Edit], notes: list[str], imports: set[str]
) -> None:
    """``df.append(other)`` (gone in pandas 2): ``pd.concat([df, other])``.  Only where its value
    is used (``df = df.append(...)``): a list's ``append`` is a statement of its own, its value
    ``None``.  A dict (one row) becomes a one-row frame; a list of frames is spread."""
    if _major("pandas") < 2:
        return
    statements = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    aliases = _module_aliases(tree, "pandas")
    pd = min(aliases) if aliases else "pd"
    for call in ast.walk(tree):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and id(call) not in statements
            and len(call.args) == 1
            and all(k.arg in ("ignore_index", "sort", "verify_integrity") for k in call.keywords)
        ):
            continue
        other = call.args[0]
        if isinstance(other, ast.Dict):
            parts = [ast.parse(f"{pd}.DataFrame([{ast.unparse(other)}])", mode="eval").body]
        elif isinstance(other, ast.List):
            parts = list(other.elts)
        else:
            parts = [other]
        new = ast.Call(
            ast.Attribute(ast.Name(pd, ast.Load()), "concat", ast.Load()),
            [ast.List([call.func.value, *parts], ast.Load())],
            list(call.keywords),
        )
        edits.append((call, new))
        if not aliases:
            imports.add("import pandas as pd")
        notes.append("pandas 2 removed DataFrame.append: pd.concat")


_RULES: list[Callable[[ast.Module, dict[str, str], list[Edit], list[str], set[str]], None]] = [
    _lightgbm_fit,
    _lightgbm_train,
    _xgboost_fit,
    _sklearn_metrics,
    _sklearn_onehot,
    _pandas_append,
]


# --------------------------------------------------------------------------- helpers
@functools.cache
def _version(module: str) -> tuple[int, int]:
    """(major, minor) of the distribution that provides ``module`` (xgboost-cpu provides xgboost);
    cached: the map of installed distributions takes a quarter of a second to build."""
    try:
        text = importlib.metadata.version(module)
    except importlib.metadata.PackageNotFoundError:
        providers = importlib.metadata.packages_distributions().get(module, [])
        text = next((v for d in providers if (v := _installed(d))), "")
    try:
        parts = text.split(".")
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (ValueError, IndexError):
        return (0, 0)


def _installed(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _major(dist: str) -> int:
    return _version(dist)[0]


def _constructor_calls(tree: ast.Module, prefix: str = "") -> dict[str, ast.Call]:
    """``name -> call`` for simple assignments ``name = SomeClass(...)`` (class name ``prefix...``)."""
    out: dict[str, ast.Call] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _callee(node.value).startswith(prefix)
        ):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value
    return out


def _constructed_names(tree: ast.Module) -> dict[str, str]:
    """``name -> class name`` for simple assignments ``name = SomeClass(...)``."""
    return {name: _callee(call) for name, call in _constructor_calls(tree).items()}


def _method_calls(
    tree: ast.Module, method: str, made: dict[str, str], prefix: str
) -> list[ast.Call]:
    """``x.method(...)`` where ``x`` was built by a class named ``prefix...``, or
    ``SomeClass(...).method(...)`` directly."""
    out = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == method
        ):
            continue
        recv = node.func.value
        cls = (
            made.get(recv.id, "")
            if isinstance(recv, ast.Name)
            else _callee(recv)
            if isinstance(recv, ast.Call)
            else ""
        )
        if cls.startswith(prefix):
            out.append(node)
    return out


def _function_calls(tree: ast.Module, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n) == name]


def _copy(call: ast.Call) -> ast.Call:
    return ast.parse(ast.unparse(call), mode="eval").body  # type: ignore[return-value]


def _apply(source: str, edits: list[Edit]) -> str:
    """Replace each call's source text by its new form (each call once)."""
    spans: dict[int, tuple[int, int, str]] = {}
    for old, new in edits:
        where = node_span(source, old)
        if where is not None and id(old) not in spans:
            spans[id(old)] = (*where, ast.unparse(new))
    return replace_spans(source, spans.values())
