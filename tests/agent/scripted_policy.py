"""A small, fixed policy for the breast-cancer fixture task, used to test the search loop's
mechanics (keep/drop, merge stop, debugger, fall-backs, proposals, resume) on real kernels."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlestar_jupyter.agent.policy import (
    AblationResult,
    AblationStudy,
    AblationSummary,
    AblationVariant,
    DataUsageReport,
    LeakageReport,
    ModelCard,
    Plan,
    RefineTarget,
)
from mlestar_jupyter.notebook import SolutionNotebook

LOAD = """import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "target"])
y = df["target"]
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)"""

MODELS = {
    "logreg": """from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.001, max_iter=300))
model.fit(X_tr, y_tr)""",
    "stump": """from sklearn.tree import DecisionTreeClassifier
model = DecisionTreeClassifier(max_depth=1, random_state=0)
model.fit(X_tr, y_tr)""",
}

EVAL = """from sklearn.metrics import roc_auc_score
val_pred = model.predict_proba(X_val)[:, 1]
print(f"Final Validation Performance: {roc_auc_score(y_val, val_pred):.6f}")"""

PREDICT = """import os
test = pd.read_csv("input/test.csv")
model.fit(X, y)
os.makedirs("final", exist_ok=True)
pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[X.columns])[:, 1]}).to_csv("final/submission.csv", index=False)"""


@dataclass
class ScriptedPolicy:
    """Deterministic answers; ``broken_plans`` are plans whose code raises, to exercise the debugger."""

    name: str = "scripted"
    plans: tuple[str, ...] = ("C=0.01", "C=1.0", "C=0.1")
    broken_first_init: bool = False
    leaky: bool = False
    models: tuple[str, ...] = ("logreg", "stump")  # what the retriever answers (keys of MODELS)
    calls: list[str] = field(default_factory=list)

    def retrieve(self, m):  # type: ignore[no-untyped-def]
        self.calls.append("retrieve")
        return [ModelCard(n, f"{n} model") for n in self.models][:m]

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        self.calls.append("init")
        model = MODELS[card.name]
        if self.broken_first_init and card.name == "logreg":
            model = model.replace("model.fit(X_tr, y_tr)", "model.fit(X_tr, y_missing)")
        return SolutionNotebook.new(
            [("load", LOAD), ("model", model), ("evaluate", EVAL)], origin=card.name
        )

    def merge(self, base, reference):  # type: ignore[no-untyped-def]
        self.calls.append("merge")
        return base  # a merge that does not improve: Algorithm 1 must stop here

    def ablation(self, solution, previous):  # type: ignore[no-untyped-def]
        self.calls.append("ablation")
        b = solution.blocks_by_role("model")[0]
        simpler = solution.replace_block(b.id, MODELS["stump"])
        return AblationStudy(variants=(AblationVariant("stump instead of model", b.id, simpler),))

    def summarize_ablation(self, study, baseline, output, variant_scores):  # type: ignore[no-untyped-def]
        res = tuple(
            AblationResult(n, "b2", s, None if s is None or baseline is None else baseline - s)
            for n, s in variant_scores.items()
        )
        return AblationSummary("the model block matters most", baseline, res)

    def extract(self, solution, summary, refined):  # type: ignore[no-untyped-def]
        return RefineTarget(solution.blocks_by_role("model")[0].id, Plan(self.plans[0]), "C=0.001")

    def code(self, solution, target, plan):  # type: ignore[no-untyped-def]
        self.calls.append(f"code:{plan.text}")
        if plan.text == "broken":
            return "C=undefined_name"
        return plan.text

    def plan(self, solution, target, history):  # type: ignore[no-untyped-def]
        return Plan(self.plans[len(history) % len(self.plans)])

    def ensemble_plan(self, solutions, history):  # type: ignore[no-untyped-def]
        return Plan(f"average {len(history)}")

    def ensemble(self, solutions, plan):  # type: ignore[no-untyped-def]
        return solutions[0]

    def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
        self.calls.append("debug")
        for b in solution.code_blocks:
            if "y_missing" in b.source:
                return solution.replace_block(b.id, b.source.replace("y_missing", "y_tr"))
            if "undefined_name" in b.source:
                return solution  # cannot fix: the loop must fall back
        return solution

    def check_leakage(self, solution):  # type: ignore[no-untyped-def]
        for b in solution.code_blocks:
            if "fit(X_val" in b.source:
                return LeakageReport(
                    True,
                    b.id,
                    "fits on validation data",
                    b.source.replace("fit(X_val, y_val)", "fit(X_tr, y_tr)"),
                )
        return LeakageReport(False)

    def check_data_usage(self, solution):  # type: ignore[no-untyped-def]
        return DataUsageReport(())

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution.append_block("predict", PREDICT, origin="submission")
