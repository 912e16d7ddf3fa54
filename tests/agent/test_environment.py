"""What the prompts are told about the machine: the installed ML packages, read cheaply."""

from __future__ import annotations

import importlib.metadata as md

import pytest

from mlestar_jupyter.agent import environment


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

    monkeypatch.setattr(environment.md, "version", missing)
    monkeypatch.setattr(environment.md, "packages_distributions", providers)
    monkeypatch.setattr(environment, "_has_cuda", lambda: False)
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

    monkeypatch.setattr(environment, "GPU_DEVICE_FILES", ("/nonexistent/nvidia",))
    monkeypatch.setattr(environment.shutil, "which", lambda name: None)
    monkeypatch.setattr(builtins, "__import__", no_torch)
    assert environment._has_cuda() is False


def test_a_driver_file_is_enough_to_ask_torch(monkeypatch, tmp_path):
    """A driver that is present sends the question on to torch, whose answer stands."""
    import sys
    import types

    driver = tmp_path / "version"
    driver.write_text("NVRM version: 999")
    fake = types.ModuleType("torch")
    fake.cuda = types.SimpleNamespace(is_available=lambda: True)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setattr(environment.shutil, "which", lambda name: None)
    monkeypatch.setattr(environment, "GPU_DEVICE_FILES", (str(driver),))
    assert environment._has_cuda() is True
    monkeypatch.setattr(environment, "GPU_DEVICE_FILES", ("/nonexistent/kfd",))
    assert environment._has_cuda() is False
