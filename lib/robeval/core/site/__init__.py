"""The reader's website, the top floor of :mod:`robeval.core`: the notebooks executed (replotted from their result
files) under each profile, annotated with their ledger rows, and assembled with the docs into one mkdocs site.

* :mod:`.build` — :func:`~robeval.core.site.build.build_site` and the passes over the executed notebooks;
* :mod:`.pages` — the generated pages and page parts (gallery, ledger page, notebook heads, home links);
* :mod:`.check` — the built site checked as a reader meets it (alt texts, wide tables);
* ``assets/`` — the ledger page's script and the site's stylesheet.
"""
