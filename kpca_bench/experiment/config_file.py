"""Reading a config file: its text (UTF-8) and its YAML (:mod:`.yaml_loader`: numbers as YAML 1.2 reads them, no key given twice), nothing of the numeric stack.

The command line reads a config through here before it imports numpy, scikit-learn or pandas, so that a
file that cannot be read or parsed is reported at once (docs/failures.md); :func:`~.config.load_config`
reads it the same way and then validates it.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from kpca_bench.errors import ConfigError
from kpca_bench.experiment.packaged import find_config
from kpca_bench.experiment.yaml_loader import DuplicateKey, read_yaml


SYNTAX_FIX = "fix the file there (indent with spaces, not tabs; close every bracket and quote)"


def config_text(path: Path) -> str:
    """The config file's text; :class:`ConfigError` if it cannot be read or is not UTF-8."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such config file; name a file, or a packaged config by name (quickstart, "
            "examples/csv, ...; kpca-bench init DIR copies them into DIR)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror}); name a readable YAML file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        utf16 = " (it looks like UTF-16)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise ConfigError(
            f"{path}: not UTF-8 text{utf16}: byte 0x{data[exc.start]:02x} on line {line} cannot be "
            "decoded; save the file as UTF-8"
        ) from None


def parse_yaml(text: str, path: Path):
    """The data of a config's YAML text; :class:`ConfigError` naming the line and column of a syntax error."""
    try:
        return read_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if isinstance(exc, DuplicateKey):
            raise ConfigError(f"{path}: {where}{problem}") from None
        raise ConfigError(f"{path}: YAML syntax error at {where}{problem}; {SYNTAX_FIX}") from None


def read_config(path) -> tuple[Path, object]:
    """The config file ``path`` names (a file, or a packaged config by name: :func:`~.packaged.find_config`)
    and its data as read from YAML, not yet validated; :class:`ConfigError` if it cannot be read or parsed."""
    path = find_config(Path(path))
    return path, parse_yaml(config_text(path), path)
