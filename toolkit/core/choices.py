"""Multiple-choice answer parsing (BBQ), shared by generation and the ``bbq`` judge (a leaf module).

The response, stripped, must *start* with the option letter (``A``, ``A.``, ``A)``, ``(A)``,
``Answer: A``) or be the lone letter in lower case; anything else is unmapped (None). See
:mod:`toolkit.stages.judging.multiple_choice` for why free text is never searched.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Sequence

LETTERS: tuple[str, ...] = ("A", "B", "C")


@lru_cache(maxsize=16)
def _leading(letters: tuple[str, ...]) -> re.Pattern:
    """Leading letter, optionally bracketed and/or after "Answer:", followed by punctuation, space or the end."""
    options = "".join(re.escape(x) for x in letters)
    return re.compile(rf"^(?:answer\s*[:\-]?\s*)?[\(\[]?([{options}])(?:[\)\]\.:,]|\s|$)", re.I)


def parse_choice(response: str, letters: Sequence[str] = LETTERS) -> Optional[str]:
    """The option letter a response starts with, or None (unmapped). ``letters``: single upper-case letters."""
    text = (response or "").strip()
    letters = tuple(letters)
    if not text:
        return None
    if text.upper() in letters and len(text) == 1:
        return text.upper()
    m = _leading(letters).match(text)
    if not m:
        return None
    letter = m.group(1)
    # A lower-case "a" opening a sentence ("a grandson ...") is an article, not option A.
    if letter.islower() and not text[: m.end()].lower().startswith(("answer", "(", "[")):
        return None
    return letter.upper() if letter.upper() in letters else None
