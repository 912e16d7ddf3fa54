"""A description's metric written in German, Spanish, French, Italian or Portuguese: the line's
word ("Metrik: Genauigkeit", "Métrica: exactitud", "Métrique : exactitude") and the common
metrics' names (accuracy, precision, RMSE, MSE, MAE, F1, ROC AUC, log loss), as the same
languages' ``Target:`` lines are read (``target_line.TARGET_LINE``).

Found by task folders of other authors (hunt of session 32): "Metrik: Genauigkeit" was no
metric line, and the words no metric's name; the folder was refused, "names no metric".  The
names follow the languages' machine-learning glossaries: *Genauigkeit*, *exactitud*,
*exactitude* / *justesse*, *accuratezza*, *acurácia* are accuracy; *Präzision*, *precisión*,
*précision*, *precisione*, *precisão* are precision.
"""

from __future__ import annotations

import re

# "Metric:", "Evaluation metric:", and the line's word in the other languages
METRIC_LINE_WORDS = (
    r"(?:evaluation\s+)?metric|(?:bewertungs|evaluations|evaluierungs)?metrik|bewertungsma(?:ß|ss)"
    r"|m[ée]trica(?:\s+de\s+(?:evaluaci[óo]n|avalia[çc][ãa]o))?|metrica(?:\s+di\s+valutazione)?"
    r"|m[ée]trique(?:\s+d['’][ée]valuation)?|crit[èe]re\s+d['’][ée]valuation"
)

# (canonical name, pattern): the metrics' names in the five languages (a longer match wins in
# ``vocabulary.find_metrics``: "raíz del error cuadrático medio" is rmse, not mse)
FOREIGN_PHRASES: tuple[tuple[str, str], ...] = (
    (
        "accuracy",
        r"\b(?:treffer)?genauigkeit\b|korrektklassifikationsrate|\bexactitud\b|\bexactitude\b"
        r"|\bjustesse\b|taux\s+de\s+bonne\s+classification|\baccuratezza\b|\bacur[áa]cia\b"
        r"|\bexatid[ãa]o\b",
    ),
    (
        "precision",
        # (not the English spelling, "precision": "Mean Average Precision @ 3" is MAP@3)
        r"\bpr[äa]zision\b|\bprecisión\b|\bprécision\b|\bprecisione\b|\bprecis[ãa]o\b",
    ),
    (
        "rmse",
        r"wurzel\s+(?:aus\s+dem\s+|des\s+|der\s+)?mittleren\s+quadratischen\s+(?:fehlers?|abweichung)"
        r"|ra[íi]z\s+(?:cuadrada\s+)?del\s+error\s+cuadr[áa]tico\s+medio"
        r"|raiz\s+do\s+erro\s+quadr[áa]tico\s+m[ée]dio"
        r"|racine\s+(?:carr[ée]e\s+)?de\s+l['’]erreur\s+quadratique\s+moyenne"
        r"|radice\s+(?:quadrata\s+)?dell['’]errore\s+quadratico\s+medio",
    ),
    (
        "mse",
        r"mittlere[rn]?\s+quadratische[rn]?\s+(?:fehler|abweichung)|error\s+cuadr[áa]tico\s+medio"
        r"|erreur\s+quadratique\s+moyenne|errore\s+quadratico\s+medio|erro\s+quadr[áa]tico\s+m[ée]dio",
    ),
    (
        "mae",
        r"mittlere[rn]?\s+absolute[rn]?\s+(?:fehler|abweichung)|error\s+absoluto\s+medio"
        r"|erreur\s+absolue\s+moyenne|errore\s+assoluto\s+medio|erro\s+absoluto\s+m[ée]dio",
    ),
    (
        "f1",
        r"\bf1[- ](?:ma(?:ß|ss)|wert)\b|\bf[- ]ma(?:ß|ss)\b"
        r"|\b(?:puntuaci[óo]n|valor|score|mesure|punteggio|misura|pontua[çc][ãa]o|medida)\s+f[- ]?1\b",
    ),
    (
        "roc_auc",
        r"fl[äa]che\s+unter\s+der\s+roc[- ]kurve|[áa]rea\s+(?:bajo|sob)\s+(?:la|a)\s+curva\s+roc"
        r"|aire\s+sous\s+la\s+courbe\s+roc|area\s+sotto\s+la\s+curva\s+roc",
    ),
    (
        "log_loss",
        r"logarithmische[rn]?\s+verlust|kreuzentropie|p[ée]rdida\s+logar[íi]tmica"
        r"|entrop[íi]a\s+cruzada|perte\s+logarithmique|entropie\s+crois[ée]e"
        r"|perdita\s+logaritmica|entropia\s+incrociata|perda\s+logar[íi]tmica|entropia\s+cruzada",
    ),
)


def foreign_metric(words: str) -> str | None:
    """The canonical name of the metric ``words`` name in one of the five languages (the
    longest such name in them), or ``None`` when they name none."""
    found = [
        (m.end() - m.start(), name)
        for name, pattern in FOREIGN_PHRASES
        for m in re.finditer(pattern, words, re.IGNORECASE)
    ]
    return max(found)[1] if found else None


__all__ = ["FOREIGN_PHRASES", "METRIC_LINE_WORDS", "foreign_metric"]
