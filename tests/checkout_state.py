"""The checkout's own state, which no test may read or write: the bundled data's outputs and remembered settings.

A developer's `make report` and `make atlas` leave them in the repo (reports/, warehouse/, .dagster_home/ with
pipeline_settings.json). A test that reads them depends on what the developer ran last (a remembered MLPERF_DIR
turned `atlas` without MLPERF_DIR into a whole atlas run: issue 46); one that writes them changes the developer's
reports and run history. So, for the whole session (tests/conftest.py), isolate(): the settings a developer may
have exported are cleared and the bundled data's home is a temporary folder (config.BUNDLED_HOME); every process
the tests start inherits both.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

from pipelines.config import BUNDLED_HOME, REPO_ROOT, SETTINGS

# The bundled data's outputs in the repo (config.Paths.outputs with no setting: everything beside the warehouse and
# the atlas's rounds are in warehouse/)
CHECKOUT_STATE = (REPO_ROOT / "reports", REPO_ROOT / "warehouse", REPO_ROOT / ".dagster_home")


def isolate(environ: MutableMapping[str, str], home: Path) -> None:
    """Clear every setting of the pipeline (--help lists them) and make `home` the bundled data's home."""
    for setting in SETTINGS:
        environ.pop(setting.name, None)
    environ[BUNDLED_HOME] = str(home)
