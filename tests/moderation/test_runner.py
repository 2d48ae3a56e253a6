"""The local-HF moderator on the embedded SmolLM2: confidences from logits, records, resume."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from schemas import ModerationRecord
from toolkit.core.arrow_schemas import MODERATION_RECORD_SCHEMA
from toolkit.stages.moderation.prompt import render, spec
from toolkit.data.reading.moderation import read_moderation
from toolkit.stages.moderation.runner import run_moderator
from toolkit.core.records_io import read_valid_rows, write_parquet_atomic
from toolkit.core.runs import RunDir

pytestmark = pytest.mark.slow


def _reference_p(lm, text, unit, variant):
    """P(flag) from one unpadded forward pass, renormalised over the two option letters."""
    import torch

    ids = lm.tokenizer(render(lm.tokenizer, text, unit, variant), return_tensors="pt", add_special_tokens=False)
    with torch.inference_mode():
        logits = lm.model(**ids).logits[0, -1].double()
    s = spec(variant)
    a, b = logits[lm.token_id(s.flag_letter)].item(), logits[lm.token_id(s.no_flag_letter)].item()
    return float(np.exp(a) / (np.exp(a) + np.exp(b)))


def test_run_resume_and_confidences(local_moderator, shared_benchmarks, tmp_path):
    run = tmp_path / "run"
    data = {"xstest": shared_benchmarks}
    r = run_moderator(run, local_moderator, ["xstest"], data=data, limit=2, batch_size=4, show_progress=False)
    assert r.written == {"xstest": 2} and r.skipped == {"xstest": 0}
    path = RunDir(run).moderation_file("xstest")
    rows = read_valid_rows(path)
    assert [ModerationRecord.model_validate(x).gold for x in rows].count("flag") == 1
    from toolkit.stages.moderation.suite import load_items

    items = {i.item_id: i for i in load_items("xstest", shared_benchmarks, limit=2)}
    for row in rows:
        ref = _reference_p(local_moderator.lm, items[row["item_id"]].text, "prompt", "default")
        assert row["p_flag_logprob"] == pytest.approx(ref, abs=1e-5)  # batching/padding changes nothing visible
        assert row["decision"] == ("flag" if row["p_flag_logprob"] >= 0.5 else "no_flag")
        if row["confidence_verbal"] is not None:
            assert 0.1 <= row["confidence_verbal"] <= 1.0
    # resume: nothing is redone; a torn last line is cut and that item redone
    again = run_moderator(run, local_moderator, ["xstest"], data=data, limit=2, batch_size=4, show_progress=False)
    assert again.written == {"xstest": 0} and again.skipped == {"xstest": 2}
    text = path.read_bytes()
    path.write_bytes(text[: text.rstrip(b"\n").rfind(b"\n") + 1] + b'{"schema_version": "1.0", "subm')
    third = run_moderator(run, local_moderator, ["xstest"], data=data, limit=2, batch_size=4, show_progress=False)
    assert third.written == {"xstest": 1}
    assert len(read_valid_rows(path)) == 2
    # swapped variant: same file, its own records; p_flag still means P(flag)
    sw = run_moderator(run, local_moderator, ["xstest"], variant="swapped", data=data, limit=1, show_progress=False)
    assert sw.written == {"xstest": 1}
    row = [x for x in read_valid_rows(path) if x["prompt_variant"] == "swapped"][0]
    ref = _reference_p(local_moderator.lm, items[row["item_id"]].text, "prompt", "swapped")
    assert row["p_flag_logprob"] == pytest.approx(ref, abs=1e-5)
    # the report reads the run folder, the .jsonl, and the same records as parquet (the dataset's schema)
    frame = read_moderation(run)
    assert len(frame) == 3
    write_parquet_atomic(tmp_path / "ds" / "data" / "moderation" / "x.parquet", read_valid_rows(path), MODERATION_RECORD_SCHEMA)
    pd.testing.assert_frame_equal(read_moderation(tmp_path / "ds"), read_moderation(path))
