"""Is a difference a bug? The comparison of two outcomes, its tolerances, the numerical referee and the
reviewed known divergences."""
