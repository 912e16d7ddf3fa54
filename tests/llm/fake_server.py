"""The scripted fake Gemini/OpenAI server used by the LLM tests.

It lives in the package (``mlestar_jupyter.llm.testing``) so that other test suites — the agent
loop's end-to-end tests — can script every role's answers the same way; this module re-exports it.
"""

from mlestar_jupyter.llm.testing import FakeLLMServer, RecordedRequest, Reply, Responder

__all__ = ["FakeLLMServer", "RecordedRequest", "Reply", "Responder"]
