"""Benchmark: candidate throughput through a Jupyter Kernel Gateway vs the local warm pool.

Runs ``--candidates`` small candidates (bench_executor's logistic regression on the
breast-cancer set) with 1 and with ``--parallel`` kernels at once, on each provider:

* ``local``: the executor's warm pool of sandboxed kernels on this machine;
* ``gateway``: remote kernels from a ``jupyter kernelgateway`` started here on 127.0.0.1
  (same storage, so no path map), with a warm pool of the same size.

Both warm their pools (with ``COMMON_PREIMPORTS``) before the clock starts, and every candidate
gets a fresh kernel.  Prints candidates/second per setting and the ratios, from one run:

    python benchmarks/bench_gateway.py [--candidates 6] [--parallel 2] [--json out.json]

On one machine the gateway adds HTTP + websocket hops and its own process to the same CPUs, so
its ratio to local is the overhead of the remote path, not the gain of scaling out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_executor import CELLS, make_input  # noqa: E402

from mlestar_jupyter.execution import COMMON_PREIMPORTS, Executor  # noqa: E402
from mlestar_jupyter.execution.gateway_process import LocalGateway  # noqa: E402
from mlestar_jupyter.notebook import SolutionNotebook  # noqa: E402

TOKEN = "bench-token"


def throughput(ex: Executor, input_dir: Path, work: Path, count: int) -> float:
    """Candidates per second for ``count`` candidates submitted at once to a warmed ``ex``."""
    ex.warm_up(timeout=180)
    notebook = SolutionNotebook.new([("other", src) for _, src in CELLS])

    async def all_runs() -> list[Any]:
        return await asyncio.gather(
            *(ex.arun(notebook, input_dir=input_dir, workdir=work / f"c{i}") for i in range(count))
        )

    t0 = time.perf_counter()
    results = asyncio.run(all_runs())
    seconds = time.perf_counter() - t0
    bad = [r.summary() for r in results if not r.ok or r.score is None]
    if bad:
        raise SystemExit(f"candidates failed: {bad[:2]}")
    return count / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--candidates", type=int, default=6)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-gw-") as tmp:
        root = Path(tmp)
        input_dir = make_input(root)
        with LocalGateway(token=TOKEN, log_path=root / "gateway.log") as gw:
            for n in sorted({1, args.parallel}):
                common = dict(
                    timeout=120, pool_size=n, max_parallel=n, threads_per_kernel=1,
                    preimport=COMMON_PREIMPORTS,
                )  # fmt: skip
                with Executor(**common) as ex:  # type: ignore[arg-type]
                    rates[f"local_{n}"] = throughput(
                        ex, input_dir, root / f"local{n}", args.candidates
                    )
                with Executor(provider="gateway", gateway_url=gw.url, gateway_token=TOKEN,
                              **common) as ex:  # type: ignore[arg-type]  # fmt: skip
                    rates[f"gateway_{n}"] = throughput(
                        ex, input_dir, root / f"gw{n}", args.candidates
                    )
                print(f"N={n}: local {rates[f'local_{n}']:.2f}/s, gateway {rates[f'gateway_{n}']:.2f}/s",
                      flush=True)  # fmt: skip
    n = args.parallel
    ratios = {
        f"gateway_{n}/gateway_1": rates[f"gateway_{n}"] / rates["gateway_1"],
        f"local_{n}/local_1": rates[f"local_{n}"] / rates["local_1"],
        "gateway_1/local_1": rates["gateway_1"] / rates["local_1"],
        f"gateway_{n}/local_{n}": rates[f"gateway_{n}"] / rates[f"local_{n}"],
    }
    print(f"candidates/s ({args.candidates} per setting): "
          + ", ".join(f"{k}={v:.2f}" for k, v in rates.items()))  # fmt: skip
    print("ratios: " + ", ".join(f"{k}={v:.2f}" for k, v in ratios.items()))
    if args.json:
        args.json.write_text(json.dumps({"rates": rates, "ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()
