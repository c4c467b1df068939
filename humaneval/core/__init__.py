"""Low-level building blocks every stage shares: the validated ratings table, response kinds, scales,
the design structure, the platform registry, currencies, deprecation and docstring helpers."""
