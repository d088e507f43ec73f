"""Code generation for the Together RL training API: spec revisions in, changelog and packages out.

The generator works with the runtime of its own checkout (``runtime/``): it reads the runtime's
lists (settings, roles, rules, the names generated code imports), and the packages it renders
import it. Importing the generator puts that runtime first on the import path.
"""

import sys
from pathlib import Path

_RUNTIME = str(Path(__file__).resolve().parent.parent / "runtime")
if _RUNTIME not in sys.path:
    sys.path.insert(0, _RUNTIME)
