"""``mlestar task import``: the command line of the importer.

    mlestar task import SOURCE... --data DIR --out TASK_DIR [--backend offline|gemini|openai|replay]
    mlestar task import --from-mlebench COMPETITION_DIR --out TASK_DIR

``register_cli(subparsers)`` adds the ``task`` command; its leaf sets ``func(args) -> int``.
A ``TaskImportError`` reaches the main CLI, which prints it (each field at fault on its own line)
and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .errors import Problem, TaskImportError
from .service import import_mlebench, import_task


def register_cli(sub: Any) -> None:
    """Add ``task import`` to the main parser's subcommands."""
    t = sub.add_parser("task", help="make task folders (import a competition's pages)")
    tsub = t.add_subparsers(dest="task_command", required=True)
    i = tsub.add_parser(
        "import",
        help="turn saved competition pages and the downloaded files into a task folder",
        description="Read saved competition pages (HTML, Markdown or text: overview, data, "
        "evaluation, rules) and the downloaded files, and write TASK_DIR/task.json and "
        "TASK_DIR/input/. Fields that were guessed are marked; nothing is written unless the "
        "task checks out against the data.",
    )
    i.add_argument("sources", nargs="*", type=Path, help="saved pages (.html, .md, .txt)")
    i.add_argument(
        "--data",
        type=Path,
        action="append",
        default=[],
        help="the downloaded files: a folder or an archive (.zip, .7z, .tar.gz); repeatable",
    )
    i.add_argument("--out", type=Path, required=True, help="the task folder to write")
    i.add_argument(
        "--backend",
        default="offline",
        help="offline (default: heuristics, no API key) | gemini | openai | replay",
    )
    i.add_argument("--model", default=None, help="LLM model name for gemini/openai")
    i.add_argument(
        "--from-mlebench",
        type=Path,
        default=None,
        metavar="DIR",
        help="an MLE-bench competition folder (description.md + prepared/public) instead of pages",
    )
    i.add_argument("--target", default=None, help="the target column, when the pages are unclear")
    i.add_argument("--id-column", default=None, help="the submission's id column")
    i.add_argument("--id", dest="task_id", default=None, help="task id (default: the folder name)")
    i.add_argument("--force", action="store_true", help="replace an existing task.json")
    i.add_argument("--json", action="store_true", help="print the written task.json")
    i.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    """Run one import and print its report (guessed fields marked)."""
    common: dict[str, Any] = dict(
        backend=args.backend,
        model=args.model,
        target=args.target,
        id_col=args.id_column,
        force=args.force,
    )
    if args.from_mlebench is not None:
        if args.sources or args.data:
            raise TaskImportError(
                [Problem("--from-mlebench", "takes no pages or --data", "pass only the folder")]
            )
        result = import_mlebench(args.from_mlebench, args.out, **common)
    else:
        if not args.data:
            raise TaskImportError(
                [Problem("--data", "missing", "pass the folder or archive of downloaded files")]
            )
        result = import_task(args.sources, args.data, args.out, task_id=args.task_id, **common)
    if args.json:
        print(json.dumps(result.spec.to_json(), indent=2))
    else:
        print(result.report())
    print(
        f"mlestar: wrote {result.task_dir / 'task.json'}; run it with 'mlestar run "
        f"{result.task_dir}'",
        file=sys.stderr,
    )
    return 0
