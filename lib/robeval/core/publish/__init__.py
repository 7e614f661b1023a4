"""What a reader sees: figures, the generated sentences and reports, the plan tables and the website.

* :mod:`.plotting` — the figure style, :func:`savefig` (legibility checked at page width) and the figure manifest;
* :mod:`.findings` — :func:`found`, the generated "what we found" sentence that ends each notebook section;
* :mod:`.view` — :func:`short_index`, the ledger as each notebook shows it;
* :mod:`.report` — CLAIMS.md, FIGURES.md and the README's generated blocks from the ledgers; comparing ledgers;
* :mod:`.markdown` — a ledger's free text made one safe line of Markdown; a generated block put between its markers;
* :mod:`.planner` — the run plans (which notebooks a time budget affords, and the central rows they decide);
* :mod:`.apidocs` — the API reference's docstring filter.

The website, which executes notebooks, is the floor above (:mod:`robeval.core.site`).

Reads the ledger (:mod:`robeval.core.ledger`) and the base modules; computes nothing that a verdict rests on.
"""

from robeval.core.publish.findings import found
from robeval.core.publish.plotting import savefig

__all__ = ["found", "savefig"]
