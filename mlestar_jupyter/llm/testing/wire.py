"""Wire bodies of the fake LLM server: Gemini and OpenAI answers (and errors), streamed or not."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from .script import RecordedRequest, Reply

_GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_OPENAI_TYPE = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    404: "not_found_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
}


def _tokens(reply: Reply) -> tuple[int, int]:
    out = (
        reply.completion_tokens
        if reply.completion_tokens is not None
        else max(1, len(reply.answer) // 4)
    )
    return reply.prompt_tokens, out


def error_body(api: str, reply: Reply) -> dict[str, Any]:
    """The JSON error body ``api`` ("gemini" or "openai") sends for the error ``reply``."""
    if api == "gemini":
        err: dict[str, Any] = {
            "code": reply.status,
            "message": reply.error_message,
            "status": _GEMINI_STATUS.get(reply.status, "UNKNOWN"),
        }
        if "API key not valid" in reply.error_message:
            err["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                }
            ]
        if reply.retry_after_s is not None:  # how Gemini says how long a quota needs
            err["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{reply.retry_after_s:g}s",
                }
            ]
        return {"error": err}
    return {
        "error": {
            "message": reply.error_message,
            "type": _OPENAI_TYPE.get(reply.status, "error"),
            "param": None,
            "code": reply.status,
        }
    }


def _pieces(text: str, n: int = 3) -> list[str]:
    if not text:
        return [""]
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def gemini_body(
    req: RecordedRequest, reply: Reply, text: str | None = None, last: bool = True
) -> dict[str, Any]:
    """A Gemini ``GenerateContentResponse``; ``text`` and ``last`` build one chunk of a stream."""
    cand: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": reply.answer if text is None else text}]},
        "index": 0,
    }
    out: dict[str, Any] = {
        "candidates": [cand],
        "modelVersion": reply.model or req.model,
        "responseId": "fake",
    }
    if last:
        cand["finishReason"] = "MAX_TOKENS" if reply.finish == "length" else reply.finish.upper()
        p, c = _tokens(reply)
        out["usageMetadata"] = {
            "promptTokenCount": p,
            "candidatesTokenCount": c,
            "totalTokenCount": p + c,
        }
        if req.wants_search and reply.grounding:
            cand["groundingMetadata"] = {
                "webSearchQueries": list(reply.search_queries) or [req.prompt[:60]],
                "groundingChunks": [{"web": {"uri": u, "title": t}} for u, t in reply.sources],
                "groundingSupports": [
                    {
                        "segment": {
                            "startIndex": 0,
                            "endIndex": len(reply.answer),
                            "text": reply.answer,
                        },
                        "groundingChunkIndices": list(range(len(reply.sources))),
                    }
                ]
                if reply.sources
                else [],
            }
    return out


def gemini_chunks(req: RecordedRequest, reply: Reply) -> Iterator[str]:
    """The SSE data lines of a streamed Gemini answer (usage on the last one)."""
    pieces = _pieces(reply.answer)
    for i, piece in enumerate(pieces):
        yield json.dumps(gemini_body(req, reply, text=piece, last=i == len(pieces) - 1))


def openai_body(req: RecordedRequest, reply: Reply) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` answer."""
    p, c = _tokens(reply)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or req.model,
        "choices": [
            {
                "index": 0,
                "finish_reason": reply.finish,
                "logprobs": None,
                "message": {"role": "assistant", "content": reply.answer},
            }
        ],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    }


def openai_chunks(req: RecordedRequest, reply: Reply) -> Iterator[str]:
    """The SSE data lines of a streamed OpenAI answer, usage chunk if asked for, then ``[DONE]``."""
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": reply.model or req.model,
    }
    for i, piece in enumerate(_pieces(reply.answer)):
        delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
        yield json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    yield json.dumps(
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish}]}
    )
    if reply.stream_usage and (req.body.get("stream_options") or {}).get("include_usage"):
        p, c = _tokens(reply)
        yield json.dumps(
            {
                **base,
                "choices": [],
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
            }
        )
    yield "[DONE]"
