"""The ablation study's summary: each variant's score, its delta, and a few lines of prose."""

from __future__ import annotations

from ..agent.policy import AblationResult, AblationStudy, AblationSummary


def summarize_ablation(
    study: AblationStudy,
    baseline: float | None,
    variant_scores: dict[str, float | None],
    *,
    higher: bool,
    metric_name: str,
) -> AblationSummary:
    """Each variant's score and its delta (positive: the block it changed helps)."""
    results = []
    for v in study.variants:
        score = variant_scores.get(v.name)
        delta = None
        if score is not None and baseline is not None:
            delta = (baseline - score) if higher else (score - baseline)
        results.append(AblationResult(v.name, v.block_id, score, delta))
    lines = [
        f"Baseline validation {metric_name}: {baseline if baseline is not None else 'unknown'}"
    ]
    ordered = sorted(results, key=lambda r: -(r.delta if r.delta is not None else float("-inf")))
    lines += [_line(r, baseline) for r in ordered]
    measured = sorted(
        (r for r in results if r.delta is not None), key=lambda r: -abs(r.delta or 0.0)
    )
    if measured:
        lines.append(f"The largest effect: {measured[0].name}.")
    return AblationSummary("\n".join(lines), baseline, tuple(results))


def _line(r: AblationResult, baseline: float | None) -> str:
    if r.score is None and baseline is not None:  # the solution ran with the block, not without
        return f"- {r.name}: failed to run (the solution does not work without the original block)"
    if r.score is None:
        return f"- {r.name}: failed to run"
    if r.delta is None:  # the baseline has no score (it failed, or was not trusted)
        return f"- {r.name}: {r.score:.5g} (no baseline score to compare with)"
    delta = r.delta or 0
    effect = "helps" if delta > 0 else "hurts" if delta < 0 else "makes no difference"
    return f"- {r.name}: {r.score:.5g} (delta {r.delta:+.5g}; the original block {effect})"
