"""The reproduction framework: what turns the papers' finished runs into their analyses and ``results/REPORT.md``.

* :mod:`.loader`: a reproduction folder as a :class:`~.loader.Reproduction`;
* :mod:`.reference`, :mod:`.findings`: its reference files (numbers, deviations, claims, choices);
* :mod:`.compare`: our numbers beside the papers' and the blessed quick-profile ones;
* :mod:`.claim_outcomes`, :mod:`.claims`: the test behind each claim, and its verdict;
* :mod:`.readings`, :mod:`.paper_findings`, :mod:`.overview`: the counting rule, each paper's section, REPORT.md;
* :mod:`.cli`, :mod:`.check`: ``python -m reproductions report | analyse | check | bless | datasets``.

It imports the library; the library imports nothing of it (tests/test_layers.py).
"""
