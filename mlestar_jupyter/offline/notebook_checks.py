"""The offline checkers: static leakage (fixed in its block) and unused input files (joinable
tables merged in after loading)."""

from __future__ import annotations

from ..agent.policy import DataUsageReport, LeakageReport
from ..codecheck import static_checks
from ..notebook import SolutionNotebook
from ..task import Task
from ..task.layout import DataLayout, files_to_read


def check_leakage(solution: SolutionNotebook, label_col: str | None) -> LeakageReport:
    """Static leakage check over the whole notebook; fit-on-test leaks are fixed in their block."""
    blocks = solution.code_blocks
    findings = static_checks.find_leakage(solution.source, label_col)
    if not findings:
        return LeakageReport(False)
    first = findings[0]
    line, bid, local = 1, blocks[-1].id, first.line
    for b in blocks:  # map the joined source's line back to its block
        n = len(b.source.splitlines()) + 1  # blocks are joined with one blank line between
        if first.line < line + n:
            bid, local = b.id, first.line - line + 1
            break
        line += n
    fixed = static_checks.fix_leakage(
        solution.block(bid).source,
        static_checks.LeakageFinding(first.kind, local, first.reason),
    )
    return LeakageReport(True, bid, first.reason, fixed)


def check_data_usage(solution: SolutionNotebook, task: Task, layout: DataLayout) -> DataUsageReport:
    """Input files the notebook never names; joinable tables among them are added after loading."""
    files = files_to_read(task, layout)  # never the answers set aside
    unused = tuple(static_checks.unused_files(solution.source, files))
    joinable = [(f, k) for f, k in layout.extra_tables if f in unused]
    loads = solution.blocks_by_role("load")
    if not joinable or not loads or layout.modality not in ("tabular", "text"):
        return DataUsageReport(unused)
    lines = []
    for file, key in joinable:
        lines += [
            f"# {file} describes each {key}: join its columns onto both tables.",
            f'extra = pd.read_csv(INPUT / "{file}")',
            f'train_df = train_df.merge(extra, on="{key}", how="left")',
            f'test_df = test_df.merge(extra, on="{key}", how="left")',
        ]
    load = loads[0]
    src = load.source.splitlines()
    # The join must happen before the features are split off: right after the tables are read.
    reads = [i for i, ln in enumerate(src) if "read_csv" in ln or "read_parquet" in ln]
    first_read = reads[-1] + 1 if reads else 0
    fixed = solution.replace_block(
        load.id,
        "\n".join(src[:first_read] + lines + src[first_read:]),
        origin="offline:data_usage",
    )
    return DataUsageReport(unused, fixed)
