"""A scripted fake LLM server for tests: real Gemini and OpenAI wire formats on 127.0.0.1.

The real ``google-genai`` and ``openai`` clients talk to it unchanged, so tests exercise the
SDKs' request building, retries, timeouts and parsing.  It serves

* Gemini: ``POST /{version}/models/{model}:generateContent`` and
  ``:streamGenerateContent?alt=sse`` (any version prefix, Vertex-style paths too);
* OpenAI: ``POST /v1/chat/completions`` (``stream: true`` → SSE ending ``data: [DONE]``) and
  ``GET /v1/models``.

Script it with replies, in order, or route replies by what the prompt says::

    with FakeLLMServer() as srv:
        srv.script("hello", Reply.unavailable(), Reply(text='{"a": 1}'))
        srv.on("ablation study", "```python\\nprint(1)\\n```", repeat=True)
        srv.default = lambda req: Reply(text="fallback")
        settings = srv.settings("openai")           # tiny timeouts and retry delays
        ...
        assert srv.requests[0].system == "You are ..."

A reply can be a ``Reply``, a plain string (the answer text), or a function of the
``RecordedRequest`` returning either.  Faults: ``Reply.unavailable()`` (503),
``Reply.rate_limited()`` (429), ``Reply.timeout()`` (answers after the client gave up),
``Reply.invalid_json()``, ``Reply.truncated()`` (MAX_TOKENS / ``length``), ``Reply.error(status)``;
server-wide: ``require_key`` (wrong key → Gemini's API_KEY_INVALID 400 / OpenAI's 401) and
``reject_json_schema`` (HTTP 500 for ``response_format: json_schema``, as llama-cpp-python does).
Nothing here needs the network or any dependency beyond the standard library.
"""

from .script import RecordedRequest, Reply, Responder
from .server import FakeLLMServer

__all__ = ["FakeLLMServer", "RecordedRequest", "Reply", "Responder"]
