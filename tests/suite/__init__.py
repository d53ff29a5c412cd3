"""The backend-agnostic suite: every test here runs against the backend `--reftape-backend` names, judged by
live TensorFlow. It ships with reftape as the package `reftape_suite`, so a tape's author runs it from any
directory: `pytest --pyargs reftape_suite --reftape-backend mytape`."""
