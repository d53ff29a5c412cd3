"""HTML discrepancy reports: findings rendered for people reading them in a browser.

`render(report_dir)` writes `index.html` and `repro/<id>.py` from the records in the directory;
`reftape-report DIR` does the same from the command line.
"""

from reftape_reports.render import render

__all__ = ["render"]
