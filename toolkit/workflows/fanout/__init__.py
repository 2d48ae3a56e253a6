"""Fan a run out: one job per (model, shard) on an executor, merged, judged and submitted per model.

``generate --executor ray --shards N`` and ``evaluate --models models.yaml`` go through here; the
jobs are the resumable stages themselves (``generate --shard K/N``), so a job killed anywhere resumes.
"""
from .board import AfterGeneration, BoardResult, ModelOutcome, ModelRun, run_board
from .models_file import ModelEntry, ModelsFile, load_models_file
from .plan import evaluate_fanned_out, generate_fanned_out, wants_fanout
from .shard_runs import SHARDS_DIR, StorageNotShared, read_attempts, shard_dir

__all__ = ["AfterGeneration", "BoardResult", "ModelOutcome", "ModelRun", "run_board", "ModelEntry", "ModelsFile",
           "load_models_file", "evaluate_fanned_out", "generate_fanned_out", "wants_fanout", "SHARDS_DIR",
           "StorageNotShared", "read_attempts", "shard_dir"]
