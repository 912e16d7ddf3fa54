"""A user's notebook that asks for a GPU, run where the kernels have none: its CPU settings.

A Kaggle notebook often trains on Kaggle's GPU: ``XGBClassifier(tree_method='gpu_hist',
gpu_id=0)``, ``params = {'device': 'cuda', ...}``, ``LGBMClassifier(device='gpu')``,
``CatBoostClassifier(task_type='GPU')``, ``model.cuda()``.  Where the run's kernels have no
GPU, the notebook stopped at XGBoost's error and was set aside.  :func:`cpu_settings` rewrites
each such setting to its CPU equivalent, line by line (``kind`` "gpu"): ``gpu_hist`` →
``hist``, ``gpu_id`` and ``predictor='gpu_predictor'`` dropped, ``device``/``device_type``
``'cuda'``/``'gpu'`` → ``'cpu'``, ``task_type='GPU'`` → ``'CPU'`` (``devices=`` dropped),
``torch.device('cuda')``/``.to('cuda')`` → ``'cpu'`` and ``.cuda()`` → ``.cpu()``; so is
``'cuda'`` given to a name of any other kind that the notebook uses as a device (``dev = 'cuda'``
with ``.to(dev)``; ``gpu``, ``DEV``: not a ``print('cuda')`` or a dict key).  A line
already choosing by ``torch.cuda.is_available()`` is left alone, as are comments.  Each changed
line ends with a comment saying why; a proposal gives the user's cell its own line back.
On a machine with a GPU the settings stay, but XGBoost's are written the way the installed
version takes them (``codecheck.api_drift``: XGBoost 3 refuses ``gpu_hist`` and ``gpu_id``).
"""

from __future__ import annotations

import ast
import re

from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from .changes import PathChange, lines_changed

NO_GPU = "  # MLE-STAR: no GPU where the run's kernels run"

# a line that may hold a GPU setting (a comment line is left alone by _to_cpu)
_GPU_LINE = re.compile(r"^.*(?:gpu|GPU|cuda).*$", re.MULTILINE)
_Q = r"(?P<q>['\"])"


def _key(names: str) -> str:
    """A keyword argument (``name=``), a dict key (``'name':``) or an assignment (``name =``,
    a config class's ``name: str =``) of one of ``names``."""
    return rf"(?:(?P<kq>['\"])(?:{names})(?P=kq)\s*:|\b(?:{names})\s*(?::\s*str\s*)?=(?!=))\s*"


# a device setting's name, in any case: device=, DEVICE =, train_device =, device_type=
_DEVICE_NAMES = r"(?i:\w*device|device_type)"
_LITERALS = (  # (pattern, replacement) applied in order to each line
    (re.compile(rf"{_Q}gpu_hist(?P=q)"), r"\g<q>hist\g<q>"),
    (
        re.compile(
            rf"(?P<k>{_key(_DEVICE_NAMES)}){_Q}(?:cuda(?::\d+)?|gpu|GPU)(?P=q)"
            r"(?!\s*if\b)"
        ),
        r"\g<k>\g<q>cpu\g<q>",
    ),
    (re.compile(rf"(?P<k>{_key('task_type')}){_Q}GPU(?P=q)"), r"\g<k>\g<q>CPU\g<q>"),
    (re.compile(rf"\btorch\.device\({_Q}cuda(?::\d+)?(?P=q)\)"), r"torch.device(\g<q>cpu\g<q>)"),
    (re.compile(rf"\.to\({_Q}cuda(?::\d+)?(?P=q)\)"), r".to(\g<q>cpu\g<q>)"),
    (re.compile(r"\.cuda\(\)"), ".cpu()"),
)
_VALUE = r"(?:\d+|['\"][^'\"\n]*['\"]|[A-Za-z_][\w.]*)"
# settings only a GPU has, dropped with their comma: gpu_id=0, 'predictor': 'gpu_predictor'
_DROPPED = (
    rf"{_key('gpu_id')}{_VALUE}",
    rf"{_key('predictor')}(?P<q>['\"])gpu_predictor(?P=q)",
    rf"{_key('devices')}['\"][\d:\-, ]*['\"]",
)
# a whole statement setting one: params['gpu_id'] = 0
_SET_ONE = re.compile(
    r"^(?P<indent>[ \t]*)[A-Za-z_][\w.]*\[(?P<kq>['\"])(?:gpu_id|devices)(?P=kq)\]\s*=[^=].*$"
)


def cpu_settings(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its GPU-only settings made their CPU equivalents (see the module
    docstring); the lines changed (``kind`` "gpu"), or ``nb`` itself and none."""
    named = _named_devices(nb)
    return lines_changed(nb, _GPU_LINE, "gpu", lambda m, _n: _to_cpu(m.group(0), named))


def _named_devices(nb: SolutionNotebook) -> re.Pattern[str] | None:
    """``dev = 'cuda'`` of a name its notebook uses as a device (``.to(dev)``, ``device=dev``,
    ``torch.device(dev)``, ``map_location=dev``), whatever the name (``dev``, ``gpu``, ``DEV``,
    ``CFG.dev``); ``None`` when it uses none.  A name never used so (``backend = 'cuda'``
    printed, a dict's ``'cuda'`` key) is left alone."""
    used: set[str] = set()
    for block in nb.code_blocks:
        try:
            tree = ast.parse(strip_magics(block.source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                used |= _device_arguments(node)
    names = sorted(n for n in used if not re.fullmatch(_DEVICE_NAMES, n))
    if not names:
        return None
    key = _key("|".join(re.escape(n) for n in names))
    return re.compile(rf"(?P<k>{key}){_Q}cuda(?::\d+)?(?P=q)(?!\s*if\b)")


def _device_arguments(call: ast.Call) -> set[str]:
    """The names (a name's, or an attribute's last part) ``call`` takes as a device."""
    func = call.func
    given = [k.value for k in call.keywords if k.arg in ("device", "map_location")]
    if isinstance(func, ast.Attribute) and func.attr in ("to", "device") and call.args:
        given.append(call.args[0])  # x.to(dev), torch.device(dev)
    return {
        v.id if isinstance(v, ast.Name) else v.attr
        for v in given
        if isinstance(v, ast.Name | ast.Attribute)
    }


def _to_cpu(line: str, named: re.Pattern[str] | None = None) -> str | None:
    """``line`` with its GPU settings made the CPU's and a comment saying so (``named``: the
    assignments of the names used as a device, ``_named_devices``); ``None`` when it has none
    (or is a comment)."""
    if not line.strip() or line.lstrip().startswith("#") or NO_GPU in line:
        return None
    indent = line[: len(line) - len(line.lstrip())]
    if _SET_ONE.match(line):
        return f"{indent}pass  # {line.strip()}{NO_GPU}"
    new = line
    for pattern, repl in _LITERALS:
        new = pattern.sub(repl, new)
    if named is not None:
        new = named.sub(r"\g<k>\g<q>cpu\g<q>", new)
    for item in _DROPPED:
        for drop in (rf"{item}\s*,[ \t]*", rf",\s*{item}", item):
            new, n = re.subn(drop, "", new)
            if n:
                break
    if new == line:
        return None
    if not new.strip():  # the line held only the dropped setting
        return f"{indent}# {line.strip()}{NO_GPU}"
    if new.rstrip().endswith("\\"):  # a comment cannot follow a continuation
        return new
    return f"{new}{NO_GPU}"


__all__ = ["NO_GPU", "cpu_settings"]
