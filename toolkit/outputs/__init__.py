"""Floor 4, what leaves the toolkit: publishing to a dataset, exports, analysis reports, review of pull
requests, the Space's deployment and launch, terminal tables. Imports the floors below (and ``space``)."""
