"""``kpca-bench methods`` and ``protocols``: what a config can name, with the defaults it gets."""

from __future__ import annotations

import typer

from kpca_bench.cli.render import fail, print_method, print_methods, print_protocols
from kpca_bench.errors import KpcaBenchError


def methods(
    name: str = typer.Argument(None, help="One method: every parameter with its default and meaning."),
):
    """List the registered methods: name, what, paper, parameters with their defaults.

    A config may also name any detector class as "package.module:Class"
    (e.g. sklearn.ensemble:IsolationForest, pyod.models.ecod:ECOD).
    """
    from kpca_bench.methods.describe import describe_parameters, parameter_defaults
    from kpca_bench.methods.registry import METHODS

    if name is None:
        print_methods(METHODS.values(), {spec.name: parameter_defaults(spec) for spec in METHODS.values()})
        return
    if name not in METHODS:
        fail(KpcaBenchError(f"unknown method {name!r}; accepted: {', '.join(METHODS)}"))
    print_method(METHODS[name], describe_parameters(METHODS[name]))


def protocols():
    """List the protocols: name, what a trial does, and their options with defaults; "(report only)" marks an
    option that changes the tables only, not the cells (a config differing in it reuses their records)."""
    import dataclasses

    from kpca_bench.protocols import PROTOCOLS

    described = []
    for protocol in PROTOCOLS.values():
        fields = {f.name: f for f in dataclasses.fields(protocol.options)}
        options = []
        for option in protocol.option_names():
            field = fields[option]
            default = (
                field.default
                if field.default is not dataclasses.MISSING
                else field.default_factory()
                if field.default_factory is not dataclasses.MISSING
                else "required"
            )
            options.append((option, default, option in protocol.report_only_options))
        described.append((protocol.name, protocol.description, options))
    print_protocols(described)
