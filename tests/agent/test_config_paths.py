"""A data folder kept as a setting (an argparse default, a config dict's entry, a config class's
field) and read back through it is pointed at ``./input`` (no kernel).

Hunts H and J (session 31): a script turned notebook with ``parser.add_argument('--data',
default='data')`` read ``os.path.join(args.data, 'train.csv')``; ``CFG = dict(data_dir='./data/')``,
``config = {'data_path': './data'}`` and ``data_dir: str = 'data'`` in a dataclass the same way.
The literal was left as written, so the notebook found no file and was set aside ("it reads
'data/train.csv', which a run cannot find")."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.config_paths import setting_folders
from mlestar_jupyter.agent.data_paths import point_to_input, restore_paths

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

ARGPARSE = (
    "parser = argparse.ArgumentParser(description='bc')\n"
    "parser.add_argument('--data-dir', type=str, default={folder},\n"
    "                    help='folder of train.csv')\n"
    "parser.add_argument('--seed', type=int, default=42)\n"
    "args = parser.parse_args(args=[])"
)


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        (  # argparse: the dest is the long option, dashes as underscores
            (
                ARGPARSE.format(folder="'data'"),
                "train = pd.read_csv(os.path.join(args.data_dir, 'train.csv'))",
            ),
            (
                ARGPARSE.format(folder="'input'"),
                "train = pd.read_csv(os.path.join(args.data_dir, 'train.csv'))",
            ),
        ),
        (  # hunt H's shape: parse_known_args, a short and a long option
            (
                "parser.add_argument('-d', '--data', default='data')\n"
                "parser.add_argument('--out', default='submission.csv')\n"
                "args, _ = parser.parse_known_args()",
                "test = pd.read_csv(os.path.join(args.data, 'test.csv'))",
            ),
            (
                "parser.add_argument('-d', '--data', default='input')\n"
                "parser.add_argument('--out', default='submission.csv')\n"
                "args, _ = parser.parse_known_args()",
                "test = pd.read_csv(os.path.join(args.data, 'test.csv'))",
            ),
        ),
        (  # dest= names the attribute
            (
                "p.add_argument('--root', dest='folder', default='/home/me/bc/')\nopt = p.parse_args([])",
                "df = pd.read_csv(opt.folder + 'train.csv')",
            ),
            (
                "p.add_argument('--root', dest='folder', default='input/')\nopt = p.parse_args([])",
                "df = pd.read_csv(opt.folder + 'train.csv')",
            ),
        ),
        (  # a config made by dict(), read by key
            (
                "CFG = dict(\n    data_dir='./data/',\n    seed=2024,\n)",
                "train = pd.read_csv(os.path.join(CFG['data_dir'], 'train.csv'))",
            ),
            (
                "CFG = dict(\n    data_dir='input/',\n    seed=2024,\n)",
                "train = pd.read_csv(os.path.join(CFG['data_dir'], 'train.csv'))",
            ),
        ),
        (  # a dict literal, read in an f-string
            (
                "config = {\n    'data_path': './data',\n    'target': 'target',\n}",
                "train = pd.read_csv(f\"{config['data_path']}/train.csv\")",
            ),
            (
                "config = {\n    'data_path': 'input',\n    'target': 'target',\n}",
                "train = pd.read_csv(f\"{config['data_path']}/train.csv\")",
            ),
        ),
        (  # a dataclass field, bound to a name through Path()
            (
                "@dataclass\nclass Config:\n    data_dir: str = 'data'\n    seed: int = 7\n\n"
                "cfg = Config()\nDATA = Path(cfg.data_dir)",
                "train = pd.read_csv(DATA / 'train.csv')",
            ),
            (
                "@dataclass\nclass Config:\n    data_dir: str = 'input'\n    seed: int = 7\n\n"
                "cfg = Config()\nDATA = Path(cfg.data_dir)",
                "train = pd.read_csv(DATA / 'train.csv')",
            ),
        ),
        (  # SimpleNamespace, read through a name bound to the attribute
            (
                "cfg = SimpleNamespace(root='~/datasets/bc', lr=0.1)\nhome = cfg.root",
                "df = pd.read_csv(f'{home}/test.csv')",
            ),
            (
                "cfg = SimpleNamespace(root='input', lr=0.1)\nhome = cfg.root",
                "df = pd.read_csv(f'{home}/test.csv')",
            ),
        ),
    ],
)
def test_a_data_folder_kept_as_a_setting_points_at_input(
    cells: tuple[str, ...], now: tuple[str, ...]
) -> None:
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == now
    for b, written in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(b.source, b.id, changes) == written  # the user's text, back


@pytest.mark.parametrize(
    "cells",
    [
        (  # an output folder: joined to a file the task's data does not hold
            "parser.add_argument('--out-dir', default='outputs')\nargs = parser.parse_args([])",
            "sub.to_csv(os.path.join(args.out_dir, 'submission.csv'))",
        ),
        (  # a setting nothing joins to a file
            "CFG = dict(data_dir='data', seed=0)",
            "print(CFG['data_dir'])",
        ),
        (  # another setting's key: CFG['data_dir'] is not CFG['log_dir']
            "CFG = dict(data_dir='data', log_dir='logs')",
            "df = pd.read_csv(os.path.join(CFG['data_dir'], 'x.csv'))\nprint(CFG['log_dir'])",
        ),
    ],
)
def test_a_setting_joined_to_nothing_of_input_is_left_alone(cells: tuple[str, ...]) -> None:
    out, changes = point_to_input(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == cells and not changes


def test_setting_folders_reads_argparse_dest_and_dict_keys() -> None:
    code = (
        "parser.add_argument('-i', '--input-dir', default='data')\n"
        "parser.add_argument('--x', dest='folder', default='d2')\n"
        "CFG = {'root': '/data'}\n"
        "print(args.input_dir, args.folder, CFG['root'], CFG['unread'])\n"
        "CFG2 = dict(unread='x')\n"
    )
    keys = {(s.text, s.key) for s in setting_folders(code)}
    assert {("data", "input_dir"), ("d2", "folder"), ("/data", "root")} <= keys
    assert ("x", "unread") in keys  # read back as CFG['unread']
    assert setting_folders("CFG = dict(data_dir='data')") == []  # never read back
