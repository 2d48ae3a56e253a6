"""mkdocs hook: a ``<!-- needs: gpu, api-key -->`` mark before a code block (which the docs runner reads: the
block is checked, not run) is shown on the site as a note above the block ("Needs a GPU · Needs an API key").
The page's source keeps the mark as it is."""
from __future__ import annotations

import re

#: what each need is called on the site (the runner's NEEDS)
LABELS = {"gpu": "Needs a GPU", "api-key": "Needs an API key", "network": "Needs the network",
          "hub": "Needs a Hugging Face account", "time": "Takes a while (minutes or more)"}
_MARK = re.compile(r"^(?P<indent>[ \t]*)<!--\s*needs\s*:\s*(?P<needs>[^>]*?)\s*-->[ \t]*$", re.M)


def note(needs: str, indent: str = "") -> str:
    labels = [LABELS.get(n.strip(), f"Needs {n.strip()}") for n in needs.split(",") if n.strip()]
    # the HTML an "!!! info" admonition renders to: it also works inside a list item, where an admonition does not
    return f'{indent}<div class="admonition info"><p class="admonition-title">{" · ".join(labels)}</p></div>\n'


def on_page_markdown(markdown: str, **_: object) -> str:
    return _MARK.sub(lambda m: note(m.group("needs"), m.group("indent")) + "\n" + m.group(0), markdown)
