"""Which models' answers a judge was trained on, so the Judges tab never passes them off as held out.

A shipped judge's card lists its training files by content sha256 (toolkit.stages.judging.cards); a
submission imported from a file records that file's sha256 (and, for a gzip file, its content's) in its
manifest (``run_config.imports[].sources``). A model whose submission was imported from one of a judge's
training files is that judge's training data on this board.
"""
from __future__ import annotations

from typing import Iterable


def source_digests(manifest) -> set[str]:
    """Every sha256 the manifest's imports record of their source files."""
    out = set()
    for entry in (manifest.run_config or {}).get("imports") or []:
        for source in entry.get("sources") or []:
            out.update(str(source[k]) for k in ("sha256", "content_sha256") if source.get(k))
    return out


def training_models(manifests: Iterable, judges: Iterable[str]) -> dict[str, dict[str, str]]:
    """{judge: {model_id: training file}} for the judges whose card lists training files found on this board."""
    from toolkit.stages.judging.cards import training_files

    manifests = list(manifests)
    out: dict[str, dict[str, str]] = {}
    for judge in judges:
        files = training_files(str(judge))
        if not files:
            continue
        found = {m.model_id: files[d] for m in manifests for d in sorted(source_digests(m)) if d in files}
        if found:
            out[str(judge)] = dict(sorted(found.items()))
    return out
