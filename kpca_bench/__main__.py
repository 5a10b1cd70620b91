from kpca_bench.cli import app

app(prog_name="kpca-bench")
