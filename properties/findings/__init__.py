"""The `Finding` record (record.py, with its JSON Schema) and the store of a run's records (store.py)."""
