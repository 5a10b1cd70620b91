from kpca_bench.cli import app

# Guarded: Dask's LocalCluster starts its workers by re-importing the main module.
if __name__ == "__main__":
    app(prog_name="kpca-bench")
