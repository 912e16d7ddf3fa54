"""The data-leakage check of an LLM policy: the grounded policy's static check, then the model.

1. The static check (free) runs first; a leak it found and fixed is the answer.
2. Otherwise the model's detector reads the whole notebook.  An unusable answer (after the
   re-asks) leaves the static finding; infrastructure errors propagate.
3. A leak is located by the code the detector quoted (else the static finding's block) and that
   code is rewritten by the fixer.  A fix that leaves names undefined which the notebook defined
   before is discarded: a broken program is worse than the leak it claims to fix.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..codecheck.static_checks import undefined_names
from ..notebook import BlockMatchError, SolutionNotebook
from .percent_script import without_markers
from .policy import GroundedPolicy, LeakageReport
from .roles import leakage_detect, leakage_fix
from .roles.caller import MODEL_ERRORS, RoleCaller
from .roles.context import RoleContext

log = logging.getLogger("mlestar.agent")


def check_leakage(
    caller: RoleCaller,
    ctx: RoleContext,
    solution: SolutionNotebook,
    grounded: GroundedPolicy | None,
) -> LeakageReport:
    """The leakage report of ``solution``, with the leaking block's fixed source when it has one."""
    static = grounded.check_leakage(solution) if grounded is not None else LeakageReport(False)
    if static.leaky and static.fixed_source:
        return static
    try:
        ans = leakage_detect.ask(caller, ctx, solution)
    except MODEL_ERRORS as e:
        log.info("leakage check: %s; static check only", e)
        return replace(
            static, note=f"the leakage detector's answer could not be used ({e}); static check only"
        )
    if not ans.leakage and not static.leaky:
        return LeakageReport(False)
    quoted = without_markers(ans.code_block)
    fragment = quoted if ans.leakage and quoted.strip() else None
    try:
        block_id = solution.locate(fragment) if fragment else static.block_id
    except BlockMatchError:
        block_id, fragment = static.block_id, None
    reason = ans.reason or static.reason
    if not block_id:
        return LeakageReport(True, None, reason)
    return _fixed(caller, solution, block_id, fragment, reason)


def _fixed(
    caller: RoleCaller,
    solution: SolutionNotebook,
    block_id: str,
    fragment: str | None,
    reason: str,
) -> LeakageReport:
    """The report with the fixer's new source for ``block_id`` (or ``fragment`` of it)."""
    new = leakage_fix.ask(caller, fragment or solution.block(block_id).source, reason)
    fixed = (
        solution.replace_in_block(block_id, fragment, new).block(block_id).source
        if fragment
        else new
    )
    broken = newly_undefined(solution, solution.replace_block(block_id, fixed))
    if broken:
        note = f" (fix discarded: it left {', '.join(broken)} undefined)"
        return LeakageReport(True, block_id, reason + note, None)
    return LeakageReport(True, block_id, reason, fixed)


def newly_undefined(before: SolutionNotebook, after: SolutionNotebook) -> list[str]:
    """Names ``after`` uses without defining them that ``before`` did define."""
    return sorted(undefined_names(after.source) - undefined_names(before.source))
