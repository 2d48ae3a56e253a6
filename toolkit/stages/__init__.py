"""Floor 3, the stages that make records: suites, generation, judging, moderation, importing, and the executors
that run their jobs. Imports the core and the data layer."""
