"""Static checks on generated code, used by every policy before a program costs an execution.

Nothing here runs the code or imports the packages it names:

- ``static_checks``: leakage patterns, unused input files, undefined/defined names, missing and
  unavailable imports (``repair_imports`` adds the obvious ones);
- ``import_names``: ``from pkg import Name`` where the installed ``pkg`` has no ``Name``
  (repaired when one close name is the clear intent);
- ``api_drift``: calls the installed library versions refuse, rewritten to what they accept;
- ``prescreen``: all of the above in order, with the reason to send back to the model.

This package sits below ``agent`` and ``offline``: both use it, it imports neither.
"""

from .api_drift import repair_api_drift
from .import_names import BadImport, bad_imports, repair_import_names
from .prescreen import prescreen
from .static_checks import (
    LeakageFinding,
    defined_names,
    find_leakage,
    fix_leakage,
    imported_modules,
    repair_imports,
    unavailable_imports,
    undefined_names,
    unused_files,
)

__all__ = [
    "BadImport",
    "LeakageFinding",
    "bad_imports",
    "defined_names",
    "find_leakage",
    "fix_leakage",
    "imported_modules",
    "prescreen",
    "repair_api_drift",
    "repair_import_names",
    "repair_imports",
    "unavailable_imports",
    "undefined_names",
    "unused_files",
]
