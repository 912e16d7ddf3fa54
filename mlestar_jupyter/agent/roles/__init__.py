"""MLE-STAR's roles, one module each (smolagents' shape).

A role module owns its ``ROLE`` (name, template ``prompts/<name>.j2``, the kind of answer and,
for JSON answers, its pydantic schema), ``render`` (what its prompt shows, fitted to the model's
context) and ``ask`` (the answer, parsed into the search loop's types).  They share:

- ``base.Role``: template rendering (``StrictUndefined``) and the default parser per answer kind;
- ``caller.RoleCaller``: ask / re-ask with the problem quoted / web search / pre-screen of code;
- ``context.RoleContext``: the task's parts a prompt quotes (fitted), data preview, starter cells.

``agent.llm_policy.LLMPolicy`` plays the roles for the search loop.
"""

from __future__ import annotations

from . import (
    ablation,
    coder,
    data_usage,
    debugger,
    ens_planner,
    ensembler,
    extractor,
    init,
    leakage_detect,
    leakage_fix,
    merger,
    novelty,
    planner,
    retriever,
    submission,
    summarize,
)
from .base import PROMPTS, Role
from .context import SYSTEM
from .extractor import ExtractAnswer
from .leakage_detect import LeakageAnswer
from .retriever import RetrievedModel
from .summarize import AblationAnswer

ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        SYSTEM,
        retriever.ROLE,
        init.ROLE,
        merger.ROLE,
        ablation.ROLE,
        summarize.ROLE,
        extractor.ROLE,
        coder.ROLE,
        planner.ROLE,
        ens_planner.ROLE,
        ensembler.ROLE,
        debugger.ROLE,
        leakage_detect.ROLE,
        leakage_fix.ROLE,
        data_usage.ROLE,
        submission.ROLE,
        novelty.ROLE,
    )
}

__all__ = [
    "PROMPTS",
    "ROLES",
    "AblationAnswer",
    "ExtractAnswer",
    "LeakageAnswer",
    "RetrievedModel",
    "Role",
]
