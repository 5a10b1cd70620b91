"""Whether the packages this Python sees meet kpca-bench's requirements, and theirs (benchmarks/gpu_check.sh).

gpu_check.sh installs kpca-bench and the carried wheels with ``pip --no-deps`` (nothing of the GPU machine's image
can be replaced or refused by a resolver there), then runs this with the install first on ``PYTHONPATH``: every
requirement reached from the named distributions (markers evaluated here, extras left out) is looked up in the
installed metadata, and the image's packages are set beside the versions ``benchmarks/gpu_image.txt`` assumes.

    python benchmarks/gpu_requirements.py --image benchmarks/gpu_image.txt kpca-bench array-api-strict

Prints one line per problem and a count; exit 1 where a requirement is missing or its version is not met.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def installed(name: str) -> str | None:
    try:
        return distribution(name).version
    except PackageNotFoundError:
        return None


def problems(roots: list[str]) -> tuple[list[str], int]:
    """The requirements reached from ``roots`` that are missing or not met, and how many were checked."""
    found, queue, seen, checked = [], list(roots), set(), 0
    while queue:
        name = canonicalize_name(queue.pop())
        if name in seen:
            continue
        seen.add(name)
        if installed(name) is None:
            found.append(f"{name}: missing")
            continue
        for requirement in map(Requirement, distribution(name).requires or []):
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            checked += 1
            version = installed(requirement.name)
            if version is None:
                found.append(f"{requirement.name}: missing (required by {name}: {requirement})")
            elif not requirement.specifier.contains(version, prereleases=True):
                found.append(f"{requirement.name} {version} does not meet {name}'s {requirement}")
            queue.append(requirement.name)
    return found, checked


def image_differences(pins: Path) -> list[str]:
    """The packages whose installed version differs from the pin in ``pins`` (a requirements file of ``==``)."""
    lines = (line.split("#")[0].strip() for line in pins.read_text().splitlines())
    differences = []
    for requirement in map(Requirement, filter(None, lines)):
        version = installed(requirement.name)
        if not requirement.specifier.contains(version or "0", prereleases=True):
            found = version or "missing"
            differences.append(f"{requirement.name} {found} here, {requirement.specifier} in {pins.name}")
    return differences


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", help="the distributions whose requirements are followed")
    parser.add_argument("--image", type=Path, help="the image's assumed versions (benchmarks/gpu_image.txt)")
    args = parser.parse_args(argv)
    found, checked = problems(args.roots)
    for line in found:
        print(line)
    print(f"requirements: {checked} checked from {', '.join(args.roots)}, {len(found)} missing or not met")
    if args.image is not None:
        differences = image_differences(args.image)
        for line in differences:
            print(line)
        print(f"image: {len(differences)} package(s) differ from {args.image.name} (a difference is only reported)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
