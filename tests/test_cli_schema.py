"""``kpca-bench schema``: the config's JSON Schema, printed or written to a file."""

import json

from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.experiment.config_schema import config_schema


def test_schema_prints_the_config_schema():
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0 and json.loads(result.stdout) == config_schema()


def test_schema_out_writes_it_to_a_file(tmp_path):
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path / "kpca-bench.schema.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "kpca-bench.schema.json").read_text()) == config_schema()


def test_schema_out_in_a_missing_folder_is_one_line_and_exit_2(tmp_path):
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path / "no" / "schema.json")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: cannot write {tmp_path / 'no' / 'schema.json'}: No such file or directory"
    ]
