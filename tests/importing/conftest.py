"""Import tests: make the helpers next to this file importable, and share their fixtures."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from importing_helpers import benchmarks, gpt4_gpteval  # noqa: E402,F401  (pytest fixtures)
