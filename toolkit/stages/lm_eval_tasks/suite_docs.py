"""The ``custom_dataset`` function of the task YAMLs beside this file (lm-eval loads it by path)."""
from toolkit.stages.lm_eval_tasks import suite_documents


def load_suite(**kwargs):
    return suite_documents(**kwargs)
