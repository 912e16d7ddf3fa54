"""task.json files as outside authors write them: every ``data_location`` form, case-mismatched
target columns, the TAM-Bench paper's own example, and the refusal when nothing matches."""

from __future__ import annotations

import json
import struct
import wave
import zlib
from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.task import Task, TaskFormatError, load_task

# Figure 5 of the TAM-Bench paper (tensorflow-speech-recognition-challenge), as printed.
PAPER_TASK_JSON = r"""{
  "task_type": "classification",
  "goal_description": "Build an algorithm that predicts the correct label for simple spoken commands from audio clips.",
  "metric": {
    "metric_name": "Multiclass Accuracy",
    "metric_formula": ""
  },
  "target_col": "Label",
  "data_information": {
    "data_type": "Audio",
    "train": {
      "data_location": "train.7z",
      "data_description": "Contains a few informational files and a folder of audio files. The audio folder contains subfolders with 1-second clips of voice commands, with the folder name being the label of the audio clip. Labels include yes, no, up, down, left, right, on, off, stop, go, silence, and unknown. The _background_noise_ folder contains longer clips of 'silence' that can be used for training. Audio files are not uniquely named across labels but are unique when including the label folder. Files have inconsistent properties such as length. Features to extract could include MFCCs, spectrograms, or raw audio signals."
    },
    "test": {
      "data_location": "test.7z",
      "data_description": "Contains an audio folder with 150,000+ files in the format 'clip_*.wav'. The task is to predict the correct label for each file. Not all files are evaluated for the leaderboard score. Test data may contain unseen subjects and should be processed accordingly."
    },
    "inference": {
      "data_location": "",
      "data_description": ""
    }
  },
  "output_format": "fname,label\\nclip_000044442.wav,silence\\nclip_0000adeb.wav,left\\nclip_0000d4322.wav,unknown\\netc.",
  "special_instructions": "1. The 'unknown' label should be used for any command that is not one of the first 10 labels ('yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go') or that is not 'silence'. 2. Use the _background_noise_ folder to generate additional silence samples for training if needed. 3. Must-use features: Consider extracting acoustic features such as MFCCs (Mel-Frequency Cepstral Coefficients) or spectrograms for model input."
}
"""


# --------------------------------------------------------------------------- small real files
def _wav(path: Path, seconds: float = 0.05, rate: int = 16000) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x01" * int(seconds * rate))


def _png(path: Path, shade: int, size: int = 4) -> None:
    """A real grey ``size`` x ``size`` PNG, written with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes([shade % 256]) * size for _ in range(size))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _task_json(
    root: Path, train: object, test: object, target: str = "label", **more: object
) -> None:
    spec = {
        "task_type": "classification",
        "goal_description": "Predict the label of each row.",
        "metric": {"metric_name": "Accuracy", "metric_formula": ""},
        "target_col": target,
        "data_information": {
            "data_type": more.pop("data_type", "Tabular"),
            "train": {"data_location": train, "data_description": "the training rows"},
            "test": {"data_location": test, "data_description": "the rows to predict"},
            "inference": {"data_location": "", "data_description": ""},
        },
        "output_format": "id,label\\n0,a\\netc.",
        "special_instructions": "",
        **more,
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "task.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")


def _tables(inp: Path, label: str = "label", n: int = 12) -> None:
    inp.mkdir(parents=True, exist_ok=True)
    rows = "\n".join(f"{i},{i % 3},{'ab'[i % 2]}" for i in range(n))
    (inp / "train.csv").write_text(f"id,x,{label}\n{rows}\n")
    (inp / "test.csv").write_text(
        "id,x\n" + "\n".join(f"{i},{i % 3}" for i in range(n, n + 4)) + "\n"
    )
    (inp / "sample_submission.csv").write_text(
        f"id,{label}\n" + "\n".join(f"{i},a" for i in range(n, n + 4)) + "\n"
    )


def _roles(task: Task) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in task.files:
        out.setdefault(f.role, []).append(f.path)
    return out


# --------------------------------------------------------------------------- the forms
@pytest.mark.parametrize(
    ("train", "test", "noticed"),
    [
        ("train.csv", "test.csv", []),  # relative to input/ (the schema's own form)
        ("input/train.csv", "./input/test.csv", []),  # relative to the task folder
        ("input\\train.csv", "input/test.csv", []),  # written on Windows
        (["train.csv"], ["test.csv"], []),  # a list instead of a string
        ("Train.CSV", "test.csv", ["'Train.CSV' matched train.csv (the case differs)"]),
        (
            "/kaggle/input/some-competition/train.csv",
            "../input/test.csv",
            [
                "'/kaggle/input/some-competition/train.csv' (read as 'train.csv' in input/) matched train.csv",
                "'../input/test.csv' (read as 'test.csv' in input/) matched test.csv",
            ],
        ),
    ],
)
def test_tabular_locations(tmp_path: Path, train: object, test: object, noticed: list[str]) -> None:
    root = tmp_path / "t"
    _tables(root / "input")
    _task_json(root, train, test)
    t = load_task(root)
    assert _roles(t) == {
        "train": ["train.csv"],
        "test": ["test.csv"],
        "sample_submission": ["sample_submission.csv"],
    }
    for text in noticed:
        assert any(text in n for n in t.notices), t.notices
    assert len(t.notices) == len(noticed)


def test_glob_and_plus_combination(tmp_path: Path) -> None:
    root = tmp_path / "leaves"
    inp = root / "input"
    labels = "\n".join(f"img_{i},{'ab'[i % 2]}" for i in range(6))
    (inp / "train_images").mkdir(parents=True)
    (inp / "train.csv").write_text(f"image_id,label\n{labels}\n")
    for i in range(6):
        _png(inp / "train_images" / f"img_{i}.png", 40 * i)
    (inp / "train_images" / "notes.txt").write_text("not an image")
    for i in range(3):
        _png(inp / "test_images" / f"t_{i}.png", 30 * i)
    (inp / "sample_submission.csv").write_text("image_id,label\nt_0,a\nt_1,a\nt_2,a\n")
    _task_json(
        root,
        "train.csv + train_images/*.png",
        "test_images/*.png",
        target="label",
        data_type="Image",
    )
    t = load_task(root)
    roles = _roles(t)
    assert roles["train"] == ["train.csv", "train_images"]
    assert roles["test"] == ["test_images"]
    assert t.modality == "image" and t.id_col == "image_id" and t.target_cols == ("label",)
    assert "'train.csv + train_images/*.png'" not in " ".join(t.notices)  # each part said alone
    assert any("'train_images/*.png' matched 6 paths; using train_images/" in n for n in t.notices)
    assert any("'test_images/*.png' matched 3 paths; using test_images/" in n for n in t.notices)


def test_top_level_glob_names_each_file(tmp_path: Path) -> None:
    root = tmp_path / "parts"
    inp = root / "input"
    _tables(inp)
    (inp / "train.csv").rename(inp / "train_part1.csv")
    (inp / "train_part2.csv").write_text("id,x,label\n99,1,a\n")
    _task_json(root, "train_part*.csv", "test.csv")
    t = load_task(root)
    assert _roles(t)["train"] == ["train_part1.csv", "train_part2.csv"]
    assert any("matched 2 paths; using train_part1.csv, train_part2.csv" in n for n in t.notices)


@pytest.mark.parametrize(
    ("train", "test", "unpack", "want_train", "want_test"),
    [
        ("train.zip", "test.zip", {"train": "dir", "test": "dir"}, ["train"], ["test"]),
        ("train.csv.zip", "test.csv.zip", {}, ["train.csv"], ["test.csv"]),
        ("train.zip", "test.7z", {}, ["train.csv"], ["test.csv"]),  # zip of one CSV
        ("input/train.tar.gz", "TEST.ZIP", {"train": "dir"}, ["train"], ["test.csv"]),
    ],
)
def test_archive_names_match_what_they_unpacked_to(
    tmp_path: Path,
    train: str,
    test: str,
    unpack: dict[str, str],
    want_train: list[str],
    want_test: list[str],
) -> None:
    root = tmp_path / "arch"
    inp = root / "input"
    _tables(inp)
    for name in unpack:  # the archive unpacked to a folder holding the images
        for i in range(6):
            _png(inp / name / f"{name}_{i}.png", i)
        if name == "train":
            (inp / "train.csv").unlink()
        else:
            (inp / "test.csv").unlink()
    _task_json(root, train, test, data_type="Image" if unpack else "Tabular")
    t = load_task(root)
    roles = _roles(t)
    assert roles["train"] == want_train and roles["test"] == want_test
    shown = [w + "/" if (inp / w).is_dir() else w for w in want_train]
    assert any(
        f"'{train}' names an archive; using what it unpacked to: {', '.join(shown)}" in n
        for n in t.notices
    ), t.notices


def test_an_archive_left_packed_is_taken_as_named(tmp_path: Path) -> None:
    root = tmp_path / "packed"
    _tables(root / "input")
    (root / "input" / "train.csv").rename(root / "input" / "train.csv.zip")
    _task_json(root, "train.csv.zip", "test.csv")
    t = load_task(root)
    assert _roles(t)["train"] == ["train.csv.zip"] and t.notices == ()


def test_a_real_name_holding_a_plus_is_not_split(tmp_path: Path) -> None:
    root = tmp_path / "plus"
    _tables(root / "input")
    (root / "input" / "train.csv").rename(root / "input" / "train+extra.csv")
    _task_json(root, "train+extra.csv", "test.csv")
    assert _roles(load_task(root))["train"] == ["train+extra.csv"]


# --------------------------------------------------------------------------- the paper's example
def _speech_commands(root: Path) -> None:
    """input/ as unpacking the competition's train.7z and test.7z leaves it (the paper's Figure 5/6)."""
    inp = root / "input"
    for label in ("yes", "no", "up"):
        for i in range(3):
            _wav(inp / "train" / "audio" / label / f"{i:08x}_nohash_0.wav")
    _wav(inp / "train" / "audio" / "_background_noise_" / "white_noise.wav", seconds=0.5)
    (inp / "train" / "validation_list.txt").write_text("yes/00000000_nohash_0.wav\n")
    (inp / "train" / "testing_list.txt").write_text("no/00000001_nohash_0.wav\n")
    (inp / "train" / "LICENSE").write_text("CC BY 4.0\n")
    clips = [f"clip_{i:08x}.wav" for i in range(4)]
    for c in clips:
        _wav(inp / "test" / "audio" / c)
    (inp / "sample_submission.csv").write_text(
        "fname,label\n" + "".join(f"{c},silence\n" for c in clips)
    )
    (root / "task.json").write_text(PAPER_TASK_JSON, encoding="utf-8")


def test_the_tam_bench_papers_example_task_json(tmp_path: Path) -> None:
    root = tmp_path / "tensorflow-speech-recognition-challenge"
    _speech_commands(root)
    t = load_task(root)
    assert _roles(t) == {
        "train": ["train"],
        "test": ["test"],
        "sample_submission": ["sample_submission.csv"],
    }
    assert t.metric_name == "accuracy" and t.task_type == "classification" and t.modality == "audio"
    assert t.id_col == "fname" and t.target_cols == ("label",)  # "Label" in task.json
    assert t.output_format.startswith("fname,label\nclip_000044442.wav,silence\n")
    assert len(t.special_instructions) == 3
    assert t.notices == (
        "data_information.train.data_location 'train.7z' names an archive; using what it unpacked to: train/",
        "data_information.test.data_location 'test.7z' names an archive; using what it unpacked to: test/",
        "target_col 'Label' is spelled 'label' in the sample submission; using 'label'",
    )


def test_the_papers_example_has_an_offline_layout(tmp_path: Path) -> None:
    """The unpacked archives nest (train/audio/<label>/, test/audio/): the offline layout finds
    them, and ``_background_noise_`` is no class."""
    from mlestar_jupyter.task.layout import inspect_task

    root = tmp_path / "speech"
    _speech_commands(root)
    layout = inspect_task(load_task(root))
    assert layout.train_media is not None and layout.test_media is not None
    assert layout.train_media.folder == "train/audio" and layout.train_media.class_folders
    assert layout.test_media.table == "sample_submission.csv"
    assert (layout.test_media.column, layout.test_media.prefix) == ("fname", "test/audio")


def test_notices_are_journaled_as_events(tmp_path: Path) -> None:
    root = tmp_path / "speech"
    _speech_commands(root)
    task = load_task(root)
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(root)})

    class Stop(Exception):
        pass

    def no_policy(i: int):  # type: ignore[no-untyped-def]
        raise Stop  # end the run right after what it journals at its start

    with pytest.raises(Stop):
        run_mlestar(task, RunConfig(), journal, executor=None, make_policy=no_policy)
    evs = read_events(journal.events_path)
    started = next(e for e in evs if e.type == "run_started")
    assert started.data["task"]["notices"] == list(task.notices)
    said = [e.data for e in evs if e.type == "warning" and e.data.get("what") == "task"]
    assert [d["message"] for d in said] == list(task.notices) and len(said) == 3


# --------------------------------------------------------------------------- target columns
def test_case_mismatched_target_takes_the_sample_spelling(tmp_path: Path) -> None:
    root = tmp_path / "case"
    _tables(root / "input", label="label")
    _task_json(root, "train.csv", "test.csv", target="Label")
    t = load_task(root)
    assert t.target_cols == ("label",)
    assert t.notices == (
        "target_col 'Label' is spelled 'label' in the sample submission; using 'label'",
    )


def test_case_mismatched_target_without_a_sample_takes_the_training_spelling(
    tmp_path: Path,
) -> None:
    root = tmp_path / "nosample"
    _tables(root / "input", label="Survived")
    (root / "input" / "sample_submission.csv").unlink()
    _task_json(root, "train.csv", "test.csv", target="survived", id_col="ID")
    t = load_task(root)
    assert t.target_cols == ("Survived",) and t.id_col == "id"
    assert (
        "target_col 'survived' is spelled 'Survived' in the training table; using 'Survived'"
        in t.notices
    )
    assert "id_col 'ID' is spelled 'id' in the test table; using 'id'" in t.notices


def test_a_target_that_is_no_column_is_kept_as_written(tmp_path: Path) -> None:
    root = tmp_path / "proba"  # the sample wants class columns; target_col names train's label
    _tables(root / "input", label="cultivar")
    (root / "input" / "sample_submission.csv").write_text("id,class_a,class_b\n12,0.5,0.5\n")
    _task_json(root, "train.csv", "test.csv", target="cultivar")
    t = load_task(root)
    assert t.target_cols == ("cultivar",) and t.notices == ()


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("train", "expected"),
    [
        (
            "train.7z",
            "data_information.train.data_location names 'train.7z', which is not in",
        ),
        ("train.7z", "the unpacked archive: a file or folder named 'train' or 'train.*'"),
        ("train_images/*.png", "names 'train_images/*.png'"),
        ("train_images/*.png", "files matching the glob"),
        (
            "input/train.csv",
            "looked for: input/train.csv in the task folder, input/input/train.csv,",
        ),
        ("train.csv + labels.csv", "names 'labels.csv', which is not in"),
        ("data/train.parquet", "the path's tail under input/"),
    ],
)
def test_nothing_matches_is_refused_clearly(tmp_path: Path, train: str, expected: str) -> None:
    root = tmp_path / "bad"
    _tables(root / "input")
    (root / "input" / "train.csv").rename(root / "input" / "training_rows.csv")
    if "+" in train:
        (root / "input" / "training_rows.csv").rename(root / "input" / "train.csv")
    _task_json(root, train, "test.csv")
    with pytest.raises(TaskFormatError) as e:
        load_task(root)
    assert e.value.path.endswith("task.json")
    assert expected in str(e.value)
    assert "fix the name or add the file" in str(e.value)


def test_a_location_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "typed"
    _tables(root / "input")
    _task_json(root, {"path": "train.csv"}, "test.csv")
    with pytest.raises(
        TaskFormatError, match="data_location must be a file name or a list of them"
    ):
        load_task(root)
