"""Floor 5, workflows that drive several stages and outputs: a whole board's fan-out and the demo."""
