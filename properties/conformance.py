"""`reftape-conformance`: runs the seed notes and the semantics catalog on TensorFlow and reftape
and prints a table of agreements. Exit status 1 when any snippet disagrees."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .compare import compare_values
from .snippets import OUT_OF_SCOPE, catalog_entries, run_catalog_entry, run_seed, seed_names


def _seed_differences(name: str, tf: Any, rt: Any) -> list[str]:
    found = []
    for i, (e, a) in enumerate(zip(run_seed(name, tf), run_seed(name, rt))):
        if e[0] != a[0]:
            found.append(f"snippet {i}: printed text differs")
        found += [d.summary() for d in compare_values(e[1], a[1], f"snippet {i}")]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--verbose", action="store_true", help="print every difference, not just counts")
    args = parser.parse_args(argv)

    import reftape
    from reftape_oracle import load_tensorflow

    tf = load_tensorflow()
    rows = [(f"seed {name}", _seed_differences(name, tf, reftape)) for name in seed_names()]
    for entry in catalog_entries():
        if entry.number in OUT_OF_SCOPE:
            rows.append((f"catalog {entry.number:2d} {entry.title[:60]}", None))
        else:
            shown = run_catalog_entry(entry, tf), run_catalog_entry(entry, reftape)
            found = [d.summary() for d in compare_values(*shown)]
            rows.append((f"catalog {entry.number:2d} {entry.title[:60]}", found))
    width = max(len(label) for label, _ in rows)
    for label, found in rows:
        status = "out of scope" if found is None else ("agrees" if not found else f"DIFFERS ({len(found)})")
        print(f"{label:<{width}}  {status}")
        if found and args.verbose:
            print("    " + "\n    ".join(found))
    checked = [f for _, f in rows if f is not None]
    failing = sum(1 for f in checked if f)
    print(f"\n{len(checked) - failing} agree, {failing} differ, {len(rows) - len(checked)} out of scope "
          f"(TensorFlow {tf.__version__})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
