"""The dataset layout, re-exported for publishing code; defined in the leaf module :mod:`toolkit.core.dataset_layout`."""
from toolkit.core.dataset_layout import *  # noqa: F401,F403
from toolkit.core.dataset_layout import (  # noqa: F401  (names `import *` would skip or that callers use directly)
    DATA_DIR,
    LEADERBOARD_FILE,
    MANIFEST_DIR,
    RESERVED_CONFIGS,
    SPLIT,
    SUBMISSIONS_INDEX_FILE,
    configs,
    item_file,
    item_files,
    manifest_file,
    moderation_file,
    suite_configs,
)
