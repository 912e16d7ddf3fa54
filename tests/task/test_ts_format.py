"""The ``.ts`` reader of our own (``task.layout.ts_format``), on files written as people write
them: the UEA archive's comment block and headers in any case, CRLF line ends, multivariate
cases, unequal lengths, ``?`` and ``NaN``, a regression target, a test file without labels.

Before it, the series notebooks read ``.ts`` files with sktime, which a plain install does not
bring: every candidate of a ``.ts`` task failed with ``ModuleNotFoundError: sktime``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.errors import LayoutError
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.ts_format import notebook_code, read_ts, ts_problem

# the head of a file of the UEA/UCR archive (GunPoint_TRAIN.ts), CRLF line ends as downloaded
GUNPOINT = (
    "#The data was derived from a video of an actor. For more information see\r\n"
    "#Ratanamahatana and Keogh (2004).\r\n"
    "#\r\n"
    "@problemName GunPoint\r\n"
    "@timeStamps false\r\n"
    "@missing false\r\n"
    "@univariate true\r\n"
    "@equalLength true\r\n"
    "@seriesLength 5\r\n"
    "@classLabel true 1 2\r\n"
    "@data\r\n"
    "-0.64789,-0.64199,-0.63819,-0.63826,-0.63870:2\r\n"
    "-0.77886,-0.77861,-0.77791,-0.77833,-0.77999:1\r\n"
    "\r\n"
    "-0.75006,-0.74868,-0.74884,-0.74884,-0.74733:2\r\n"
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


def test_a_uea_archive_file_with_comments_and_crlf_reads_its_series_and_labels(
    tmp_path: Path,
) -> None:
    series, labels = read_ts(_write(tmp_path / "GunPoint_TRAIN.ts", GUNPOINT))
    assert len(series) == 3 and all(s.shape == (1, 5) for s in series)
    assert series[1][0, 0] == pytest.approx(-0.77886)
    assert labels is not None and labels.tolist() == ["2", "1", "2"]


def test_header_keywords_in_any_case_and_a_byte_order_mark(tmp_path: Path) -> None:
    text = "\ufeff@PROBLEMNAME x\n@TimeStamps FALSE\n@ClassLabel TRUE a b\n@DATA\n1,2:a\n3,4:b\n"
    series, labels = read_ts(_write(tmp_path / "x_TRAIN.ts", text))
    assert [s.tolist() for s in series] == [[[1.0, 2.0]], [[3.0, 4.0]]]
    assert labels is not None and labels.tolist() == ["a", "b"]


def test_multivariate_cases_of_unequal_lengths_with_missing_values(tmp_path: Path) -> None:
    text = (
        "# BasicMotions-like, written by hand\n"
        "@problemName Motions\n@timeStamps false\n@missing true\n@univariate false\n"
        "@dimensions 2\n@equalLength false\n@classLabel true walking running\n@data\n"
        "0.1,0.2,?,0.4:1.0,NaN,3.0,4.0:walking\n"
        "0.5,0.6:2.0,2.5,3.5:running\n"
    )
    series, labels = read_ts(_write(tmp_path / "Motions_TRAIN.ts", text))
    assert series[0].shape == (2, 4) and series[1].shape == (2, 3)
    assert np.isnan(series[0][0, 2]) and np.isnan(series[0][1, 1])
    assert series[1][0, :2].tolist() == [0.5, 0.6] and np.isnan(series[1][0, 2])  # padded
    assert labels is not None and labels.tolist() == ["walking", "running"]


def test_a_regression_target_is_a_number(tmp_path: Path) -> None:
    text = (
        "@problemName AppliancesEnergy\n@timeStamps false\n@missing false\n@univariate true\n"
        "@equalLength true\n@seriesLength 3\n@targetlabel true\n@data\n"
        "1.0,2.0,3.0:19.5\n2.0,3.0,4.0:-0.25\n"
    )
    _, labels = read_ts(_write(tmp_path / "Energy_TRAIN.ts", text))
    assert labels is not None and labels.dtype == float and labels.tolist() == [19.5, -0.25]


def test_a_test_file_without_labels_has_none(tmp_path: Path) -> None:
    text = "@problemName Gun\n@univariate true\n@classLabel false\n@data\n1,2,3\n4,5,6\n"
    series, labels = read_ts(_write(tmp_path / "Gun_TEST.ts", text))
    assert len(series) == 2 and labels is None


def test_a_test_file_whose_header_was_copied_with_the_labels_but_its_cases_have_none(
    tmp_path: Path,
) -> None:
    """``@classLabel true a b`` copied from the training file, no label on the cases: the
    declared dimensions tell a label from a dimension."""
    text = "@problemName M\n@dimensions 2\n@classLabel true a b\n@data\n1,2:3,4\n5,6:7,8\n"
    series, labels = read_ts(_write(tmp_path / "M_TEST.ts", text))
    assert [s.shape for s in series] == [(2, 2), (2, 2)] and labels is None


def test_timestamped_series_are_refused_with_what_to_write(tmp_path: Path) -> None:
    text = "@problemName T\n@timeStamps true\n@classLabel true a\n@data\n(0,1.0),(1,2.0):a\n"
    path = _write(tmp_path / "T_TRAIN.ts", text)
    with pytest.raises(ValueError, match=r"timestamped .*@timeStamps false"):
        read_ts(path)
    assert "timestamped" in (ts_problem(path, training=True) or "")


def test_a_value_that_is_no_number_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "B_TRAIN.ts", "@classLabel true a\n@data\n1,2:a\n1,x,3:a\n")
    with pytest.raises(ValueError, match=r"line 4: 'x' is not a number"):
        read_ts(path)


def test_a_file_without_data_says_to_add_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no @data line"):
        read_ts(_write(tmp_path / "E_TRAIN.ts", "@problemName E\n"))


def test_a_training_file_that_says_it_has_no_labels_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "G_TRAIN.ts", "@classLabel false\n@data\n1,2,3\n")
    assert "@classLabel true" in (ts_problem(path, training=True) or "")
    assert ts_problem(path, training=False) is None


def test_the_code_a_notebook_defines_reads_as_the_module_does(tmp_path: Path) -> None:
    """The notebook defines the reader from its source (it imports nothing of this package):
    with numpy and ``Path`` alone, it reads what the module reads."""
    path = _write(tmp_path / "GunPoint_TRAIN.ts", GUNPOINT)
    scope: dict[str, object] = {"np": np, "Path": Path}
    exec(compile(notebook_code(), "notebook", "exec"), scope)  # noqa: S102 - our own source
    series, labels = scope["read_ts"](path)  # type: ignore[operator]
    want_series, want_labels = read_ts(path)
    assert all(np.array_equal(a, b) for a, b in zip(series, want_series, strict=True))
    assert labels.tolist() == want_labels.tolist()  # type: ignore[union-attr]


def test_a_task_of_timestamped_ts_files_is_refused_when_loaded(tmp_path: Path) -> None:
    root = tmp_path / "stamped"
    _write(root / "README.md", "# stamped\n\nClassify each series.\n\n## Evaluation\n\nAccuracy.\n")
    head = "@problemName S\n@timeStamps true\n@univariate true\n"
    _write(root / "S_TRAIN.ts", head + "@classLabel true a b\n@data\n(0,1),(1,2):a\n")
    _write(root / "S_TEST.ts", head + "@classLabel false\n@data\n(0,1),(1,2)\n")
    with pytest.raises(LayoutError, match="timestamped"):
        inspect_task(load_task(root))
