"""A README's metric line in German, Spanish, French, Italian or Portuguese (hunt of session 32):
"Metrik: Genauigkeit" was no metric line and its words no metric, so the folder was refused
("names no metric"); the line's word and the common metrics' names are read in those languages,
as their ``Target:`` lines are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.task import load_task


def _folder(root: Path, readme: str) -> None:
    rs = np.random.RandomState(0)
    df = pd.DataFrame({"id": range(40), "alkohol": rs.rand(40) + 11, "asche": rs.rand(40)})
    df["klasse"] = rs.randint(0, 2, 40)
    df.iloc[:30].to_csv(root / "train.csv", index=False)
    df.iloc[30:].drop(columns="klasse").to_csv(root / "test.csv", index=False)
    (root / "README.md").write_text(readme, encoding="utf-8")


@pytest.mark.parametrize(
    ("lines", "metric"),
    [
        ("Zielvariable: klasse\nMetrik: Genauigkeit", "accuracy"),
        ("Variable objetivo: klasse\nMétrica: exactitud", "accuracy"),
        ("Variable cible : klasse\nMétrique : exactitude", "accuracy"),
        ("Variable cible : klasse\nMétrique : précision", "precision"),
        ("Variabile target: klasse\nMetrica: accuratezza", "accuracy"),
        ("Variável alvo: klasse\nMétrica: acurácia", "accuracy"),
        ("Zielvariable: klasse\nBewertungsmetrik: Fläche unter der ROC-Kurve", "roc_auc"),
        ("Variable objetivo: klasse\nMétrica de evaluación: pérdida logarítmica", "log_loss"),
        ("Zielvariable: klasse\nMetrik: F-Maß", "f1"),
    ],
)
def test_classification_metric_line(tmp_path: Path, lines: str, metric: str) -> None:
    _folder(tmp_path, f"# Weinklassen\n\nSagen Sie die Klasse jedes Weins voraus.\n\n{lines}\n")
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols) == (metric, ("klasse",))


@pytest.mark.parametrize(
    ("line", "metric"),
    [
        ("Métrica: raíz del error cuadrático medio", "rmse"),
        ("Métrique d'évaluation : erreur absolue moyenne", "mae"),
        ("Metrica: errore quadratico medio", "mse"),
        ("Métrica: raiz do erro quadrático médio", "rmse"),
        ("Metrik: mittlerer absoluter Fehler", "mae"),
    ],
)
def test_regression_metric_line(tmp_path: Path, line: str, metric: str) -> None:
    _folder(tmp_path, f"# Preise\n\nTarget: klasse\n\n{line}\n")
    task = load_task(tmp_path)
    assert task.metric_name == metric
    assert task.direction == "minimize"
