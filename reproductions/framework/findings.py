"""What the reproduction report says beyond the numbers: why numbers deviate, and the papers' claims.

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
  nothing: a deviation is explained only by a run that shows it.
* ``claims.yaml``: a paper's qualitative claims (which method beats which, what is faster,
  what is comparable), each with the section or sentence of the paper it comes from
  (``source``) and the config stems whose runs are its evidence (``configs``). A claim
  with a ``rule`` gets its verdict computed from those runs' stored trials
  (:mod:`reproductions.framework.claims`): ``rule`` is a comparison or a list of them, each
  ``{kind: beats | not_worse | steadier | close | faster | bound | most, method: label, than: [labels], metric: name}``
  (the kinds: :mod:`reproductions.framework.claims`) with
  ``better: lower`` for an error or a time, ``configs`` (a subset of the claim's; default
  all), ``margin`` (``close``) or ``factor`` (``faster``) and ``basis``, where that
  margin or factor comes from; a label written ``label@config`` is read from that
  config's run; its optional ``evidence`` says what a reader must know beside the numbers
  (a model without components behind one of them, a timing measured elsewhere). A claim no
  record can settle (a figure, a page of prose) keeps a verdict by hand: ``holds`` (one of
  :data:`VERDICTS`), ``verdict``, ``evidence``, and says so wherever it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kpca_bench.errors import ConfigError
from kpca_bench.experiment.yaml_loader import read_yaml

DEVIATIONS_FILE = "deviations.yaml"
CLAIMS_FILE = "claims.yaml"
NOT_EXPLAINED = "not explained yet"
VERDICTS = ("holds", "partly", "not shown", "fails", "not run", "not assessed")
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
        return any(
            config in selector["configs"]
            and method in selector.get("methods", [method])
            and metric in selector.get("metrics", [metric])
            for selector in self.selectors
        )


RULE_KINDS = ("beats", "not_worse", "steadier", "close", "faster", "bound", "most")
DIRECTIONS = ("higher", "lower")
RULE_KEYS = (
    "kind",
    "method",
    "than",
    "metric",
    "better",
    "configs",
    "margin",
    "factor",
    "bound",
    "settings",
    "than_metric",
    "basis",
)
# The number each kind is held to (with its basis); ``bound`` compares with that number rather than with a method.
BOUNDS = {"close": "margin", "faster": "factor", "bound": "bound"}


@dataclass(frozen=True)
class Comparison:
    """One comparison a claim's verdict is computed from (:mod:`reproductions.framework.claims` says how).

    Attributes
    ----------
    kind : ``beats`` (``method`` better than each of ``than``), ``not_worse`` (not behind any of them),
        ``steadier`` (its values vary less over the trials), ``close`` (within ``margin`` of each), ``faster``
        (``metric``, a time, at least ``factor`` times smaller than each), ``bound`` (every trial's value beyond
        ``bound``; no ``than``) or ``most`` (ahead of each at most kernel parameter values of a sweep).
    method, than : method labels of the runs, ``label@config`` for a label read from another config's run.
    metric : a column of the runs' ``trials.csv`` or a sweep statistic (``auroc_best``, ``auroc_q25``, ...).
    better : ``higher`` or ``lower`` (an error, a time).
    configs : the config stems it is evaluated on, one case per config and label of ``than``.
    margin, factor, bound : the number of ``close`` / ``faster`` / ``bound``; ``basis`` says where it comes from.
    settings : for a metric stored per setting (Kim's ``explained_variation`` per kernel width and corruption),
        setting column -> the values kept; one case per setting.
    than_metric : the metric of the ``than`` side where it differs (Wang & Tanaka compare SKPCA's sample sparsity
        with the SVM's share of non-support vectors).
    """

    kind: str
    method: str
    than: tuple[str, ...]
    metric: str
    configs: tuple[str, ...]
    better: str = "higher"
    margin: float | None = None
    factor: float | None = None
    bound: float | None = None
    settings: dict = field(default_factory=dict, hash=False, compare=False)
    than_metric: str = ""
    basis: str = ""


@dataclass(frozen=True)
class Claim:
    """A claim of a paper (``source``: its section or sentence) and the configs whose runs are its evidence.

    With a ``rule`` its verdict is computed from the runs; without one ``holds`` (one of :data:`VERDICTS`),
    ``verdict`` and ``evidence`` are a verdict by hand.
    """

    paper: str
    claim: str
    source: str
    configs: tuple[str, ...]
    rule: tuple[Comparison, ...] = ()
    holds: str = ""
    verdict: str = ""
    evidence: str = ""
    analysis: str = ""


def _entries(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> list[dict]:
    """The entries of a YAML list file, each checked to have the required keys and no others; [] if no file."""
    if not path.exists():
        return []
    try:
        entries = read_yaml(path.read_text()) or []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', None) or exc}") from None
    allowed = set(required) | set(optional)
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: must be a list of entries with the keys {', '.join(required)}")
    problems = [
        f"{path}: entry {i}: must be a mapping with the keys {', '.join(required)} "
        f"(optional: {', '.join(optional) or 'none'})"
        for i, e in enumerate(entries)
        if not isinstance(e, dict) or not set(required) <= set(e) or not set(e) <= allowed
    ]
    if problems:
        raise ConfigError("\n".join(problems))
    return entries


def _selectors(match, where: str) -> tuple[dict, ...]:
    """``match`` as a tuple of selectors, each with a list of ``configs`` and optional lists of methods / metrics."""
    selectors = match if isinstance(match, list) else [match]
    for selector in selectors:
        if (
            not isinstance(selector, dict)
            or "configs" not in selector
            or not set(selector) <= set(SELECTOR_KEYS)
            or not all(isinstance(v, list) for v in selector.values())
        ):
            raise ConfigError(
                f"{where}: match must be {{configs: [...], methods: [...], metrics: [...]}} "
                f"(methods and metrics optional) or a list of those, got {selector!r}"
            )
    return tuple(selectors)


def _verdict(value):
    """YAML reads an unquoted ``yes`` / ``no`` as a boolean: take it as the verdict it means."""
    if isinstance(value, bool):
        return "holds" if value else "fails"
    return value


def load_deviations(folder) -> list[Deviation]:
    """Every entry of ``<folder>/deviations.yaml`` (``folder`` a reproduction's reference files), in file order."""
    path = Path(folder) / DEVIATIONS_FILE
    entries = _entries(
        path, ("paper", "match", "numbers", "cause", "analysis"), ("evidence", "variants", "checks", "tried")
    )
    bad = [
        f"{path}: entry {i}: {key} must be a list"
        for i, e in enumerate(entries)
        for key in ("variants", "checks", "tried")
        if not isinstance(e.get(key, []), list)
    ]
    if bad:
        raise ConfigError("\n".join(bad))
    return [
        Deviation(
            paper=e["paper"],
            selectors=_selectors(e["match"], f"{path}: entry {i}"),
            numbers=str(e["numbers"]),
            cause=str(e["cause"]),
            analysis=str(e["analysis"]),
            evidence=str(e.get("evidence", "")),
            variants=tuple(map(str, e.get("variants", []))),
            checks=tuple(map(str, e.get("checks", []))),
            tried=tuple(map(str, e.get("tried", []))),
        )
        for i, e in enumerate(entries)
    ]


def _comparison_problems(rule: dict, configs: list) -> list[str]:
    """What is wrong with one comparison of a claim's ``rule`` (an empty list if nothing)."""
    if not isinstance(rule, dict):
        return [f"each comparison of rule must be a mapping with the keys kind, method, than, metric, got {rule!r}"]
    needed = ("kind", "method", "metric") if rule.get("kind") == "bound" else ("kind", "method", "than", "metric")
    problems = [f"rule: missing {key}" for key in needed if key not in rule]
    problems += [f"rule: unknown key {key!r} (allowed: {', '.join(RULE_KEYS)})" for key in rule if key not in RULE_KEYS]
    if rule.get("kind", RULE_KINDS[0]) not in RULE_KINDS:
        problems.append(f"rule: kind must be one of {', '.join(RULE_KINDS)}, got {rule['kind']!r}")
    if rule.get("better", DIRECTIONS[0]) not in DIRECTIONS:
        problems.append(f"rule: better must be one of {', '.join(DIRECTIONS)}, got {rule['better']!r}")
    if rule.get("kind") != "bound" and (not isinstance(rule.get("than", []), list) or not rule.get("than", [None])):
        problems.append("rule: than must be a non-empty list of method labels")
    if not isinstance(rule.get("settings", {}), dict):
        problems.append("rule: settings must map a setting column to the values kept, e.g. {corruption: [0.05, 0.1]}")
    bound = BOUNDS.get(rule["kind"]) if "kind" in rule else None
    if bound and not isinstance(rule.get(bound), (int, float)):
        problems.append(f"rule: kind {rule['kind']} needs a number {bound} (and its basis)")
    labels = [rule.get("method", ""), *(rule.get("than") or [])]
    named = set(rule.get("configs", [])) | {str(label).rpartition("@")[2] for label in labels if "@" in str(label)}
    problems += [f"rule: config {stem!r} is not in the claim's configs" for stem in sorted(named - set(configs))]
    return problems


def _rule(entry: dict) -> tuple[Comparison, ...]:
    """A claim entry's ``rule`` (one comparison or a list) as comparisons; () if it has none."""
    rules = entry.get("rule") or []
    return tuple(
        Comparison(
            kind=r["kind"],
            method=str(r["method"]),
            than=tuple(map(str, r.get("than") or [])),
            metric=str(r["metric"]),
            configs=tuple(r.get("configs") or entry["configs"]),
            better=r.get("better", "higher"),
            margin=r.get("margin"),
            factor=r.get("factor"),
            bound=r.get("bound"),
            settings=dict(r.get("settings") or {}),
            than_metric=str(r.get("than_metric", "")),
            basis=str(r.get("basis", "")),
        )
        for r in (rules if isinstance(rules, list) else [rules])
    )


def _claim_problems(entry: dict) -> list[str]:
    """What is wrong with one claims.yaml entry: a rule's comparisons, or a verdict by hand."""
    if not isinstance(entry["configs"] or [], list):
        return ["configs must be a list of config stems"]
    if "rule" in entry:
        rules = entry["rule"] if isinstance(entry["rule"], list) else [entry["rule"]]
        return [p for rule in rules for p in _comparison_problems(rule, entry["configs"] or [])]
    missing = [key for key in ("holds", "verdict", "evidence") if key not in entry]
    if missing:
        return [f"a claim without a rule needs a verdict by hand: {', '.join(missing)} missing"]
    entry["holds"] = _verdict(entry["holds"])
    if entry["holds"] not in VERDICTS:
        return [f"holds must be one of {', '.join(VERDICTS)}, got {entry['holds']!r}"]
    return []


def load_claims(folder) -> list[Claim]:
    """Every entry of ``<folder>/claims.yaml`` (``folder`` a reproduction's reference files), in file order."""
    path = Path(folder) / CLAIMS_FILE
    entries = _entries(
        path, ("paper", "claim", "source", "configs"), ("rule", "holds", "verdict", "evidence", "analysis")
    )
    bad = [f"{path}: entry {i}: {problem}" for i, e in enumerate(entries) for problem in _claim_problems(e)]
    if bad:
        raise ConfigError("\n".join(bad))
    return [
        Claim(
            paper=e["paper"],
            claim=str(e["claim"]),
            source=str(e["source"]),
            configs=tuple(e["configs"] or ()),
            rule=_rule(e),
            holds=e.get("holds", ""),
            verdict=str(e.get("verdict", "")),
            evidence=str(e.get("evidence", "")),
            analysis=str(e.get("analysis", "")),
        )
        for e in entries
    ]
