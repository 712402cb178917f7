#!/usr/bin/env bash
# Kept for older instructions: the UI is `python -m pipelines.cli ui` (or `make ui`); see its --help.
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT" && exec "$ROOT/.venv/bin/python" -m pipelines.cli ui "$@"
