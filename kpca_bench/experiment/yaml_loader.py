"""The one YAML reader of the configs a person writes: numbers as YAML 1.2 reads them, no key given twice.

PyYAML implements YAML 1.1, which reads ``1e-3``, ``1E5`` and ``1e308`` as strings (its floats need a dot,
and a signed exponent); YAML 1.2, JSON and Python read them as floats, and so does :class:`ConfigLoader`.
Every loader of a user's YAML (the run config, the config stored in a run's ``run.json``) reads through
:func:`read_yaml`.
"""

from __future__ import annotations

import re

import yaml

# YAML 1.2's floats in exponent form that YAML 1.1 reads as strings; the rest of 1.1's float forms stay.
EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$")
FLOAT_TAG = "tag:yaml.org,2002:float"


class DuplicateKey(yaml.constructor.ConstructorError):
    """A mapping gives the same key twice."""


class ConfigLoader(yaml.SafeLoader):
    """PyYAML's safe loader, reading numbers in exponent form as floats and refusing a key given twice in one
    mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        first_marks = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = first_marks.setdefault(key, key_node.start_mark)
            except TypeError:  # an unhashable key: the safe loader's own message names it
                continue
            if first is not key_node.start_mark:
                raise DuplicateKey(
                    None,
                    None,
                    f"duplicate key {key!r} (first given on line {first.line + 1}); keep one",
                    key_node.start_mark,
                )
        return super().construct_mapping(node, deep=deep)


# add_implicit_resolver copies SafeLoader's table into ConfigLoader first, so yaml.safe_load is unchanged.
ConfigLoader.add_implicit_resolver(FLOAT_TAG, EXPONENT_FLOAT, list("-+0123456789."))


def read_yaml(text: str):
    """The data of YAML ``text`` as :class:`ConfigLoader` reads it; :class:`yaml.YAMLError` if it is not YAML."""
    return yaml.load(text, Loader=ConfigLoader)  # noqa: S506 - a subclass of SafeLoader
