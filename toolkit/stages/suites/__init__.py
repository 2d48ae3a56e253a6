"""Safety suites: the items (prompts, ids, categories, expected behaviour) models are run on.

    from toolkit.stages.suites import load_items
    items = load_items("smoke,sst", data_dir="/path/to/benchmarks", limit=10)

Real suites read ``<data_dir>/<suite folder>/<file>.csv`` when a data dir is given, or fetch their
pinned public source into a cache beside the Hugging Face hub cache.
"""
from ._base import Suite, SuiteDataError, SuiteItem
from ._registry import SUITES, SuiteInfo, download_suites, get_suite, load_items, register_suite, suite_infos, suite_kind

# Imported for their @register_suite side effect; order here is the order SUITES lists them in.
from . import _smoke  # noqa: E402,F401  isort: skip
from ._described import DescribedSuite, described_suite, register_described  # noqa: E402  isort: skip
from ._samples import FULL_ITEMS, FULL_OF, sampled_suites  # noqa: E402  isort: skip

#: the suites that only read one file, described as data (described/<name>.yaml), in listing order
register_described(("sst", "harmbench", "xstest"))
from . import _airbench, _salad, _bbq  # noqa: E402,F401  isort: skip

__all__ = [
    "SuiteItem",
    "Suite",
    "SUITES",
    "register_suite",
    "get_suite",
    "load_items",
    "suite_kind",
    "SuiteDataError",
    "SuiteInfo",
    "suite_infos",
    "download_suites",
    "sampled_suites",
    "FULL_OF",
    "FULL_ITEMS",
    "DescribedSuite",
    "described_suite",
    "AirBench",
    "JudgePrompt",
    "BBQ",
]
from ._airbench import AirBench, JudgePrompt  # noqa: E402
from ._bbq import BBQ  # noqa: E402
