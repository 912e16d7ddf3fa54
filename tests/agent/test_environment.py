"""What the prompts are told about the machine: the installed ML packages, read cheaply."""

from __future__ import annotations

import importlib.metadata as md

import pytest

from mlestar_jupyter.agent import environment
from mlestar_jupyter.execution import machine


@pytest.fixture
def fresh_detection():
    environment.detect_environment.cache_clear()
    yield
    environment.detect_environment.cache_clear()


def test_the_module_map_is_read_once_however_many_packages_are_missing(
    monkeypatch, fresh_detection
):
    """Every package of the list is missing under its own name here; the scan of all installed
    distributions' files (slow in a venv of a few hundred packages) runs once, not once each."""
    calls = []

    def missing(name: str) -> str:
        if name == "xgboost-cpu":
            return "3.0.0"
        raise md.PackageNotFoundError(name)

    def providers() -> dict[str, list[str]]:
        calls.append(1)
        return {"xgboost": ["xgboost-cpu"]}

    monkeypatch.setattr(machine.md, "version", missing)
    monkeypatch.setattr(machine.md, "packages_distributions", providers)
    monkeypatch.setattr(machine, "_has_cuda", lambda: False)
    env = environment.detect_environment()
    assert calls == [1]
    assert env.packages == (("xgboost", "3.0.0"),)
    assert "xgboost==3.0.0" in env.render()


def test_without_a_gpu_driver_torch_is_not_imported(monkeypatch):
    """No driver file and no nvidia-smi: no GPU, decided without the seconds torch's import takes."""
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch":
            raise AssertionError("torch was imported to look for a GPU")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(machine, "GPU_DEVICE_FILES", ("/nonexistent/nvidia",))
    monkeypatch.setattr(machine.shutil, "which", lambda name: None)
    monkeypatch.setattr(builtins, "__import__", no_torch)
    assert machine._has_cuda() is False


def test_a_driver_file_is_enough_to_ask_torch(monkeypatch, tmp_path):
    """A driver that is present sends the question on to torch, whose answer stands."""
    import sys
    import types

    driver = tmp_path / "version"
    driver.write_text("NVRM version: 999")
    fake = types.ModuleType("torch")
    fake.cuda = types.SimpleNamespace(is_available=lambda: True)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setattr(machine.shutil, "which", lambda name: None)
    monkeypatch.setattr(machine, "GPU_DEVICE_FILES", (str(driver),))
    assert machine._has_cuda() is True
    monkeypatch.setattr(machine, "GPU_DEVICE_FILES", ("/nonexistent/kfd",))
    assert machine._has_cuda() is False


# -- the kernels' machine: this one, or remote kernels' own answer ---------------------------------

REMOTE = {
    "python": "3.12.7",
    "packages": [["torch", "2.13.0"], ["xgboost", "3.0.0"]],
    "cpus": 64,
    "gpu": True,
}


def test_the_probe_code_run_by_another_python_describes_that_python(tmp_path):
    """What a remote kernel runs: the module's source and one marked line, read back as the same
    description this process makes of its own machine."""
    import subprocess
    import sys

    script = tmp_path / "probe.py"
    script.write_text(machine.probe_code(), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    answer = machine.read_probe("some output of the kernel\n" + out.stdout)
    here = machine.describe_machine()
    assert answer is not None and answer == here
    assert here["cpus"] == machine.usable_cpus() >= 1


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "MLESTAR_MACHINE not json",
        'MLESTAR_MACHINE {"python": "3.12"}',  # keys missing
        'MLESTAR_MACHINE ["python", "packages", "cpus", "gpu"]',
    ],
)
def test_an_answer_that_is_not_a_description_is_none(stdout):
    assert machine.read_probe(stdout) is None


class _RemoteExecutor:
    """An executor whose kernels run elsewhere (``provider`` set) and answer ``answer``."""

    provider = object()

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def describe_machine(self, *, input_dir, workdir, timeout=60):
        self.asked.append((input_dir, workdir))
        return self.answer


def _context(tmp_path, task_dir):
    from mlestar_jupyter.agent.config import RunConfig
    from mlestar_jupyter.agent.search import Context
    from mlestar_jupyter.journal import RunJournal
    from mlestar_jupyter.task import load_task

    journal = RunJournal.create(tmp_path / "run", {})
    return Context(task=load_task(task_dir), config=RunConfig(), journal=journal, runner=None)


def test_remote_kernels_machine_is_the_one_the_run_describes(tmp_path, tabular_task):
    """A laptop without a GPU driving a GPU server's kernels: the run's machine is the server's
    (its cores, its GPU), asked in the run's work folder, not this machine's."""
    from mlestar_jupyter.agent.run import _kernels_machine

    ctx = _context(tmp_path, tabular_task)
    ex = _RemoteExecutor(REMOTE)
    env = _kernels_machine(ctx, ex)
    assert (env.gpu, env.cpus, env.python) == (True, 64, "3.12.7")
    assert ("torch", "2.13.0") in env.packages and "GPU: yes (CUDA)" in env.render()
    ((input_dir, workdir),) = ex.asked
    assert input_dir == ctx.task.input_dir and workdir == ctx.journal.path("work", "machine")
    assert not [e for e in ctx.journal.events if e.type == "warning"]


def test_remote_kernels_that_cannot_answer_leave_a_warning_and_this_machine(tmp_path, tabular_task):
    from mlestar_jupyter.agent.run import _kernels_machine

    ctx = _context(tmp_path, tabular_task)
    env = _kernels_machine(ctx, _RemoteExecutor(None))
    assert env == environment.detect_environment()
    (warning,) = [e for e in ctx.journal.events if e.type == "warning"]
    assert "remote kernels did not say what their machine has" in warning.data["message"]


def test_local_kernels_are_not_asked(tmp_path, tabular_task):
    """Kernels on this machine see what this process sees: no kernel is started to ask."""
    from mlestar_jupyter.agent.run import _kernels_machine

    ctx = _context(tmp_path, tabular_task)
    ex = _RemoteExecutor(REMOTE)
    ex.provider = None
    assert _kernels_machine(ctx, ex) == environment.detect_environment() and ex.asked == []


def test_an_llm_policy_tells_its_model_the_kernels_machine(tabular_task, tmp_path):
    """The system prompt of every request names the remote machine's cores and GPU."""
    from mlestar_jupyter.agent.config import RunConfig
    from mlestar_jupyter.agent.policy import MachineAware
    from mlestar_jupyter.llm.client import LLMClient
    from mlestar_jupyter.llm.testing import FakeLLMServer
    from mlestar_jupyter.policies import grounded_llm_policy
    from mlestar_jupyter.task import load_task

    with FakeLLMServer() as srv:
        client = LLMClient.from_settings(srv.settings("openai"), cache_dir=tmp_path / "llm")
        policy = grounded_llm_policy(load_task(tabular_task), RunConfig(backend="openai"), client)
        assert isinstance(policy, MachineAware)
        policy.use_environment(environment.Environment.from_machine(REMOTE))
    assert "CPU cores: 64; GPU: yes (CUDA)" in policy.caller.system
    assert "xgboost==3.0.0" in policy.system
