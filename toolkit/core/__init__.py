"""Floor 1, the core: errors, defaults, the component registry, record files, run folders, the resumable stage
engine, Hub access and the dataset layout. Imports nothing of the toolkit above it."""
