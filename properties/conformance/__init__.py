"""What the backend-agnostic suite runs: the semantics catalog's and the seeds' snippets, and the differential
property over generated programs."""
