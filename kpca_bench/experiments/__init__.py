"""Figure scripts that need no protocol: each module makes one paper figure (``python -m ...``)."""
