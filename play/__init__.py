"""FreeCell in the browser, where "winnable" and "unwinnable" are proofs (`make play`, `python -m play serve`).

Modules: ``engine`` (the one adapter to ``solver`` and ``certgen``), ``moves`` (a player's moves, supermoves
as sequences of single spec moves), ``wire`` (the API's JSON forms, read strictly), ``hints``, ``verdicts``
(verdicts, certificates and Lean files, cached), ``catalog`` (known deals, difficulty, daily and random
deals), ``jobs`` (bounded solver work), ``app`` (the Starlette app), ``cli`` (``serve``), ``static/`` (the
page: HTML, CSS and JavaScript served as they are).
"""
