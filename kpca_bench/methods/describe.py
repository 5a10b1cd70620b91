"""What a registered method takes: each parameter's default and meaning, read from its estimator.

The defaults come from the estimator's signature under the spec's own defaults, the meanings from
the estimator's numpydoc docstring; ``kpca-bench methods`` renders them.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from kpca_bench.methods.registry import MethodSpec


@dataclass(frozen=True)
class Parameter:
    """One parameter of a method: its name, the default a config gets, and its meaning ("" if undocumented)."""

    name: str
    default: object
    meaning: str


def parameter_defaults(spec: MethodSpec) -> dict[str, object]:
    """Each parameter of ``spec`` with the default a config gets: the spec's, else the estimator's signature's."""
    signature = {name: parameter.default for name, parameter in inspect.signature(spec.estimator).parameters.items()}
    return {name: spec.defaults.get(name, signature.get(name)) for name in spec.param_names()}


def parameter_meanings(klass: type) -> dict[str, str]:
    """The type line of each parameter in the numpydoc docstring of ``klass``, then " — " and the first line of its
    description."""
    doc = inspect.getdoc(klass) or ""
    section = doc.split("Parameters\n----------\n", 1)[1] if "Parameters\n----------\n" in doc else ""
    section = re.split(r"\n\w[\w ]*\n-{3,}\n", section)[0]
    meanings, names = {}, []
    for line in section.splitlines():
        match = re.match(r"^([\w, ]+?) : (.*)$", line)
        if match:
            names = [n.strip() for n in match.group(1).split(",")]
            for name in names:
                meanings[name] = match.group(2).strip()
        elif line.startswith("    ") and names:
            for name in names:
                if " — " not in meanings[name]:
                    meanings[name] += " — " + line.strip()
            names = []
    return meanings


def describe_parameters(spec: MethodSpec) -> list[Parameter]:
    """Every parameter of ``spec``, in its order, with its default and meaning."""
    meanings = parameter_meanings(spec.estimator)
    return [Parameter(name, default, meanings.get(name, "")) for name, default in parameter_defaults(spec).items()]
