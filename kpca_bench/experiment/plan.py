"""What a run would do, before it does anything: ``kpca-bench plan CONFIG``.

Cells per method entry, how many are already stored, and the time left
estimated from the stored cells' wall times (per entry, else over the run).
Reads the config and the store only: no data is loaded and nothing runs. A suite's datasets
are counted together; those whose files are not here are named and left out of the counts,
as ``run`` skips them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from kpca_bench.experiment.config import Config
from kpca_bench.experiment.runner import missing_files
from kpca_bench.experiment.planning import experiment_directory, is_finished, plan_cells
from kpca_bench.experiment.store import ResultStore


@dataclass(frozen=True)
class EntryPlan:
    label: str
    method: str
    settings: int
    cells: int
    stored: int
    mean_wall_time: float | None

    @property
    def left(self) -> int:
        return self.cells - self.stored


@dataclass(frozen=True)
class Plan:
    directory: Path
    datasets: str  # "dataset NAME", or for a suite how many of its datasets have files here
    protocol: str
    trials: int
    entries: list[EntryPlan]
    skipped: tuple[str, ...] = ()

    @property
    def cells(self) -> int:
        return sum(e.cells for e in self.entries)

    @property
    def stored(self) -> int:
        return sum(e.stored for e in self.entries)

    def seconds_left(self, jobs: int = 1) -> float | None:
        """The stored mean wall time of each entry (of the whole run for an entry with none) times its cells left,
        divided among ``jobs`` workers; None when nothing is stored to estimate from."""
        times = [e.mean_wall_time for e in self.entries if e.mean_wall_time is not None]
        if not times:
            return None if self.stored < self.cells else 0.0
        overall = mean(times)
        total = sum(e.left * (e.mean_wall_time if e.mean_wall_time is not None else overall) for e in self.entries)
        return total / max(jobs, 1)


def plan_run(config: Config, out_root) -> Plan:
    """The plan of a config: one dataset, or a suite's datasets whose files are here (each in its sub-folder)."""
    directory = experiment_directory(config, out_root)
    planned, skipped = [], []
    for label, member in config.members():
        if config.is_suite and missing_files(member):
            skipped.append(label)
        else:
            planned.append((directory / label if config.is_suite else directory, plan_cells(member)))
    stored = {folder: ResultStore(folder).load() if folder.is_dir() else {} for folder, _ in planned}
    entries = []
    for index, method in enumerate(config.methods):
        mine = [(folder, cell) for folder, cells in planned for cell in cells if cell.method_index == index]
        done = [
            stored[folder][c.key]
            for folder, c in mine
            if c.key in stored[folder] and is_finished(stored[folder][c.key])
        ]
        times = [r["wall_time"] for r in done if isinstance(r.get("wall_time"), (int, float))]
        entries.append(
            EntryPlan(
                label=method.label,
                method=method.name,
                settings=len(method.settings()),
                cells=len(mine),
                stored=len(done),
                mean_wall_time=mean(times) if times else None,
            )
        )
    if config.is_suite:
        datasets = f"{len(planned)} of {len(planned) + len(skipped)} datasets with files here"
    else:
        assert config.dataset is not None, "a config that is no suite names its dataset"
        datasets = f"dataset {config.dataset.name}"
    return Plan(
        directory=directory,
        datasets=datasets,
        protocol=config.protocol,
        trials=config.trials,
        entries=entries,
        skipped=tuple(skipped),
    )
