"""The reproductions of five papers with kpca-bench, outside the library: one folder per paper, and the framework
that turns their finished runs into ``results/REPORT.md`` (:mod:`reproductions.framework`).

``python -m reproductions --help`` lists its commands: ``report``, ``analyse``, ``check``, ``bless``. The library
(``kpca_bench``) imports nothing of this package.
"""
