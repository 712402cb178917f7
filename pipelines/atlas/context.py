"""The atlas's context builder lives in pipelines/publish/atlas_context.py, beside the report's; this
name stays for the atlas build (pipelines/atlas/build.py) and its callers."""

from pipelines.publish.atlas_context import build_context

__all__ = ["build_context"]
