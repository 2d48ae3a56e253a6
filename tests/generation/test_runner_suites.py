"""The runner on the real suites: per-suite decoding, item_metadata, BBQ in both modes, provenance."""
import json

import pytest

from schemas import GenerationConfig, ItemRecord, ResponseRecord
from slmboard_suite_fixtures import write_airbench, write_bbq, write_salad
from toolkit import api
from toolkit.core.errors import SlmboardError, UnknownComponent
from toolkit.stages.generation.runner import suite_decoding


def rows(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def test_paper_decoding_per_suite():
    gen = GenerationConfig(temperature=0, max_new_tokens=512, seed=0, backend="hf")
    assert (suite_decoding("salad", gen).max_new_tokens, suite_decoding("salad", gen).seed) == (256, 1337)
    assert (suite_decoding("salad_defense", gen).max_new_tokens, suite_decoding("salad_defense", gen).seed) == (256, 1337)
    assert (suite_decoding("airbench", gen).max_new_tokens, suite_decoding("airbench", gen).seed) == (512, 0)
    assert suite_decoding("bbq", gen).max_new_tokens == 1  # single-token multiple choice
    assert suite_decoding("salad", gen, max_new_tokens=8).model_dump() | {} == suite_decoding("salad", gen, 8).model_dump()
    assert (suite_decoding("salad", gen, 8).max_new_tokens, suite_decoding("salad", gen, 8).seed) == (8, 1337)


def test_records_carry_suite_metadata_and_provenance(tmp_path, hf_backend, mirror_or_none):
    data = tmp_path / "data"
    write_airbench(data)
    write_salad(data)
    suites = ["airbench", "salad"] + (["harmbench"] if mirror_or_none else [])
    if mirror_or_none:
        (data / "harmbench").mkdir()
        (data / "harmbench" / "harmbench_behaviors_text_all.csv").write_bytes(
            (mirror_or_none / "harmbench" / "harmbench_behaviors_text_all.csv").read_bytes())
    run = tmp_path / "run"
    api.generate(run, model=hf_backend, options=api.GenerationRunOptions(suites=suites, data_dir=data, limit=1, max_new_tokens=3), services=api.Services(progress=False))
    air = rows(run / "responses" / "airbench.jsonl")[0]
    ResponseRecord.model_validate(air)
    assert json.loads(air["item_metadata"]) == {"cate_idx": "1.1.1", "l2": "Security Risks", "l3": "Confidentiality", "l4": "Network intrusion"}
    assert air["suite_revision"] == "976d9fbb0f52bce704dcbef5bd7a2652e65f2a21" and air["toolkit_version"]
    g = air["generation"]
    assert g["backend"] == "hf" and g["temperature"] == 0 and g["do_sample"] is False and len(g["chat_template_sha256"]) == 64
    salad = rows(run / "responses" / "salad.jsonl")[0]
    assert salad["generation"]["seed"] == 1337 and json.loads(salad["item_metadata"])["category_3"] == "O53: Financial Crimes"
    if mirror_or_none:
        hb = rows(run / "responses" / "harmbench.jsonl")[0]
        assert json.loads(hb["item_metadata"])["functional_category"] in {"standard", "contextual", "copyright"}
    config = json.loads((run / "run.json").read_text())
    assert config["suite_revisions"]["salad"] == "main" and config["shard"] is None


@pytest.fixture(scope="module")
def bbq_data(tmp_path_factory, mirror_or_none):
    root = tmp_path_factory.mktemp("bbq")
    write_bbq(root, mirror_or_none, per_category=1)
    return root


def check_bbq_row(row, mode):
    ResponseRecord.model_validate(row)
    meta = json.loads(row["item_metadata"])
    assert meta["mc_mode"] == mode
    assert row["gold_choice"] == meta["gold_choice"] in ("A", "B", "C")
    for key in ("category", "context_condition", "question_polarity", "unknown_choice", "target_choice", "biased_choice"):
        assert key in meta
    assert row["choice"] in ("A", "B", "C", None)
    assert row["correct"] is (row["choice"] == row["gold_choice"])  # unmapped (None) is not correct
    return meta


def test_bbq_generated_letter_mode(tmp_path, hf_backend, bbq_data):
    run = tmp_path / "gen"
    api.generate(run, model=hf_backend, options=api.GenerationRunOptions(suites="bbq", data_dir=bbq_data), services=api.Services(progress=False))
    out = rows(run / "responses" / "bbq.jsonl")
    assert len(out) == 11 and {json.loads(r["item_metadata"])["category"] for r in out} == {r["category"] for r in out}
    for row in out:
        check_bbq_row(row, "generate")
        assert row["generation"]["max_new_tokens"] == 1
    # The bbq judge: scores are exactly `correct` (unmapped counted wrong), records validate.
    result = api.judge(run, judge="bbq", services=api.Services(progress=False))
    assert result.n_new == 11 and result.status_counts == {"ok": 11}
    judged = rows(run / "judgments" / "bbq-mc-v1" / "bbq.jsonl")
    for row in judged:
        rec = ItemRecord.model_validate(row)
        assert rec.judge_id == "bbq-mc-v1" and rec.score == (1.0 if rec.correct else 0.0)
    assert not api.validate(run).errors
    # A second run in the other mode must not mix into this folder.
    with pytest.raises(SlmboardError, match="mode generate.*mode loglikelihood"):
        api.generate(run, model=hf_backend, options=api.GenerationRunOptions(suites="bbq", data_dir=bbq_data, mode="loglikelihood"), services=api.Services(progress=False))


def test_bbq_loglikelihood_mode(tmp_path, hf_backend, bbq_data):
    run = tmp_path / "ll"
    api.generate(run, model=hf_backend, options=api.GenerationRunOptions(suites="bbq", data_dir=bbq_data, mode="loglikelihood"), services=api.Services(progress=False))
    out = rows(run / "responses" / "bbq.jsonl")
    assert len(out) == 11
    for row in out:
        meta = check_bbq_row(row, "loglikelihood")
        lp = meta["option_logprobs"]
        assert set(lp) == {"A", "B", "C"} and all(v < 0 for v in lp.values())
        assert row["response"] == row["choice"] == max("ABC", key=lambda k: (lp[k], -"ABC".index(k)))


def test_bad_mode_and_unknown_suite_list_valid_values(tmp_path):
    with pytest.raises(SlmboardError, match="valid modes: generate, loglikelihood"):
        api.generate(tmp_path / "r", options=api.GenerationRunOptions(suites="smoke", mode="logits"))
    with pytest.raises(UnknownComponent, match="valid suites: .*airbench.*bbq.*salad"):
        api.generate(tmp_path / "r", options=api.GenerationRunOptions(suites="smoke,nope"))
    with pytest.raises(SlmboardError, match="unknown model argument 'pretrainde' for the hf backend; valid keys: .*pretrained"):
        api.generate(tmp_path / "r", model=api.BackendSpec.combine(api.DEFAULT_BACKEND, "pretrainde=x"), options=api.GenerationRunOptions(suites="smoke"))
    assert not (tmp_path / "r").exists()  # nothing written before the inputs are known good
