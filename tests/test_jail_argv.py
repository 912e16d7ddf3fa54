"""The jail's mount order: nothing bound from the host is hidden by a tmpfs mounted after it."""

from __future__ import annotations

from pathlib import Path

from mlestar_jupyter.execution.jail import Jail


def _position(argv: list[str], *mount: str) -> int:
    for i in range(len(argv) - len(mount) + 1):
        if tuple(argv[i : i + len(mount)]) == mount:
            return i
    raise AssertionError(f"{' '.join(mount)} not in the bwrap command: {argv}")


def test_a_virtual_environment_under_tmp_stays_visible(tmp_path: Path) -> None:
    """A venv made under /tmp (as CI's is) is bound after the jail's empty /tmp, not under it."""
    venv = "/tmp/some-ci-folder/venv"
    argv = Jail(bwrap="bwrap", readonly=(venv,)).argv(private=tmp_path / "kernel")
    tmpfs = _position(argv, "--tmpfs", "/tmp")
    assert _position(argv, "--ro-bind", venv, venv) > tmpfs
    assert _position(argv, "--bind", str(tmp_path / "kernel"), str(tmp_path / "kernel")) > tmpfs
