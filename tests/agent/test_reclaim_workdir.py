"""A run killed with SIGKILL while a jailed kernel held a candidate's work folder leaves a link
to the kernel's slot, gone with the kernel (hunt, session 23): on resume that candidate failed
to start, "[Errno 17] File exists: 'runs/r2/work/p1-t0k2'", and its plan was lost."""

from __future__ import annotations

from pathlib import Path

from mlestar_jupyter.agent.executions import reclaim_workdir


def test_the_link_a_killed_run_left_is_removed_and_the_folder_made_again(tmp_path: Path) -> None:
    slot = tmp_path / "mlestar-exec-dead" / "kernels" / "k-1" / "w"
    slot.mkdir(parents=True)
    workdir = tmp_path / "run" / "work" / "p1-t0k2"
    workdir.parent.mkdir(parents=True)
    workdir.symlink_to(slot, target_is_directory=True)
    (slot / "partial.csv").write_text("x\n")
    slot.joinpath("partial.csv").unlink()
    slot.rmdir()  # mlestar clean removed the dead run's scratch: the link dangles
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        raise AssertionError("a dangling link should block mkdir")
    except FileExistsError:
        pass
    reclaim_workdir(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    assert workdir.is_dir() and not workdir.is_symlink()
    reclaim_workdir(workdir)  # a real folder (a finished candidate's) is kept
    assert workdir.is_dir()
