"""What the reproduction report says beyond the numbers: why numbers deviate, and claims without numbers.

Two hand-written lists sit beside a paper's numbers in its reproduction's ``reference/`` folder,
each entry's text taken from an analysis (``results/*_report.md``, ``li_summary.md``,
``sas_*/README.md``) and linking to it:

* ``deviations.yaml``: why some of a paper's numbers do not hold. ``match`` names the
  numbers of the report's paper-vs-ours table an entry explains: ``{configs: [config
  file stems], methods: [labels], metrics: [names]}`` (methods and metrics default to
  all), or a list of such selectors. What tested the entry (optional): ``variants``,
  stems of the reproductions' ``configs/variants/`` runs, each a reading of the paper (a number is
  explained by a variant when the variant's run of the same config holds it within
  tolerance); ``checks``, CSV files of consistency checks in the results root (rows
  config, method, metric, inconsistent: a number is explained where its row says the
  paper's value is inconsistent with its own protocol); ``tried``, other hypotheses
  tested and their results, in words. A cause no variant or check tests explains
  nothing (issue 20's rule).
* ``claims.yaml``: claims a paper makes without a number (Kim & Klabjan's summary page,
  Shen & Asgharzadeh's Figure 2, Wang & Tanaka's toy figures), whether they hold, and
  the configs whose runs are the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from kpca_bench.errors import ConfigError

DEVIATIONS_FILE = "deviations.yaml"
CLAIMS_FILE = "claims.yaml"
NOT_EXPLAINED = "not explained yet"
VERDICTS = ("yes", "partly", "no", "not tested", "not assessed")
SELECTOR_KEYS = ("configs", "methods", "metrics")


@dataclass(frozen=True)
class Deviation:
    """Why some numbers of a paper do not hold: which numbers (``selectors``), in words, the cause, the analysis."""

    paper: str
    selectors: tuple[dict, ...]
    numbers: str
    cause: str
    analysis: str
    evidence: str = ""
    variants: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    tried: tuple[str, ...] = ()

    def explains(self, config: str, method: str, metric: str) -> bool:
        """Whether this entry names the number ``metric`` of ``method`` in the run of config stem ``config``."""
        return any(config in selector["configs"]
                   and method in selector.get("methods", [method])
                   and metric in selector.get("metrics", [metric])
                   for selector in self.selectors)


@dataclass(frozen=True)
class Claim:
    """A claim with no number to compare, our verdict on it (``holds``: one of :data:`VERDICTS`) and the evidence."""

    paper: str
    claim: str
    holds: str
    verdict: str
    evidence: str
    configs: tuple[str, ...]
    analysis: str = ""


def _entries(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> list[dict]:
    """The entries of a YAML list file, each checked to have the required keys and no others; [] if no file."""
    if not path.exists():
        return []
    try:
        entries = yaml.safe_load(path.read_text()) or []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', None) or exc}") from None
    allowed = set(required) | set(optional)
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: must be a list of entries with the keys {', '.join(required)}")
    problems = [f"{path}: entry {i}: must be a mapping with the keys {', '.join(required)} "
                f"(optional: {', '.join(optional) or 'none'})"
                for i, e in enumerate(entries)
                if not isinstance(e, dict) or not set(required) <= set(e) or not set(e) <= allowed]
    if problems:
        raise ConfigError("\n".join(problems))
    return entries


def _selectors(match, where: str) -> tuple[dict, ...]:
    """``match`` as a tuple of selectors, each with a list of ``configs`` and optional lists of methods / metrics."""
    selectors = match if isinstance(match, list) else [match]
    for selector in selectors:
        if (not isinstance(selector, dict) or "configs" not in selector or not set(selector) <= set(SELECTOR_KEYS)
                or not all(isinstance(v, list) for v in selector.values())):
            raise ConfigError(f"{where}: match must be {{configs: [...], methods: [...], metrics: [...]}} "
                              f"(methods and metrics optional) or a list of those, got {selector!r}")
    return tuple(selectors)


def _verdict(value):
    """YAML reads an unquoted ``yes`` / ``no`` as a boolean: take it as the word."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def load_deviations(folder) -> list[Deviation]:
    """Every entry of ``<folder>/deviations.yaml`` (``folder`` a reproduction's reference files), in file order."""
    path = Path(folder) / DEVIATIONS_FILE
    entries = _entries(path, ("paper", "match", "numbers", "cause", "analysis"),
                       ("evidence", "variants", "checks", "tried"))
    bad = [f"{path}: entry {i}: {key} must be a list" for i, e in enumerate(entries)
           for key in ("variants", "checks", "tried") if not isinstance(e.get(key, []), list)]
    if bad:
        raise ConfigError("\n".join(bad))
    return [Deviation(paper=e["paper"], selectors=_selectors(e["match"], f"{path}: entry {i}"),
                      numbers=str(e["numbers"]), cause=str(e["cause"]), analysis=str(e["analysis"]),
                      evidence=str(e.get("evidence", "")), variants=tuple(map(str, e.get("variants", []))),
                      checks=tuple(map(str, e.get("checks", []))), tried=tuple(map(str, e.get("tried", []))))
            for i, e in enumerate(entries)]


def load_claims(folder) -> list[Claim]:
    """Every entry of ``<folder>/claims.yaml`` (``folder`` a reproduction's reference files), in file order."""
    path = Path(folder) / CLAIMS_FILE
    entries = _entries(path, ("paper", "claim", "holds", "verdict", "evidence", "configs"), ("analysis",))
    for entry in entries:
        entry["holds"] = _verdict(entry["holds"])
    bad = [f"{path}: entry {i}: holds must be one of {', '.join(VERDICTS)}, got {e['holds']!r}"
           for i, e in enumerate(entries) if e["holds"] not in VERDICTS]
    if bad:
        raise ConfigError("\n".join(bad))
    return [Claim(paper=e["paper"], claim=str(e["claim"]), holds=e["holds"], verdict=str(e["verdict"]),
                  evidence=str(e["evidence"]), configs=tuple(e["configs"] or ()), analysis=str(e.get("analysis", "")))
            for e in entries]
