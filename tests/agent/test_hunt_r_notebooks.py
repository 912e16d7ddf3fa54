"""Hunt R (session 35): outsiders' notebooks read without a kernel — a data folder taken from
an environment variable with a default."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.data_paths import point_to_input

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

READ = "train = pd.read_csv(os.path.join(DATA_DIR, 'train.csv'))"


@pytest.mark.parametrize(
    ("line", "pointed"),
    [
        (
            'DATA_DIR = os.getenv("BC_DATA", "/home/maria/projects/bc/data")',
            'DATA_DIR = os.getenv("BC_DATA", "input")',
        ),
        (
            "DATA_DIR = Path(os.environ.get('DATA_DIR', '../data/raw'))",
            "DATA_DIR = Path(os.environ.get('DATA_DIR', 'input'))",
        ),
    ],
)
def test_a_data_folder_read_from_the_environment_is_pointed_at_its_default(
    line: str, pointed: str
) -> None:
    """inputs/r8_datadir: ``os.getenv("BC_DATA", "/home/maria/...")`` became
    ``os.getenv("input", "/home/maria/...")``: the variable's name was taken for the folder,
    so the kernel read the author's folder and the notebook failed."""
    nb, changes = point_to_input(
        _nb(f"import os\nimport pandas as pd\n{line}", READ), BREAST_CANCER / "input"
    )
    assert nb.code_blocks[0].source.splitlines()[-1] == pointed
    assert [(c.old, c.new) for c in changes] == [(line.split(", ")[1].strip("'\")"), "input")]
