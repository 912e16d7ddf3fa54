"""Errors of the agent layer."""

from __future__ import annotations


class AgentError(Exception):
    """Base of every agent-layer error."""


class RunStopped(AgentError):
    """The run must end now (stop requested, or a budget ran out); it still ends with its best."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.reason,))


class NothingLeftToRefine(AgentError):
    """The extractor has no block left to refine in this solution (every strategy it knows was
    tried): the path's refinement ends here, which is not a failure."""


class NotEnsembled(AgentError):
    """The policy does not ensemble these solutions (the offline one cannot join a user's own
    code): the run keeps the best single solution, which is not a failure."""


class NoSolutionError(AgentError):
    """Nothing ran: no candidate produced a validation score."""


class InvalidConfig(AgentError, ValueError):
    """A knob or budget out of range (a negative, infinite or NaN time limit, M=0, ...)."""
