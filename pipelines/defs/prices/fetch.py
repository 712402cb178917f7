"""The fetch of new price snapshots from the providers' public APIs, as its own job.

Fetching reaches the internet and adds files to raw/prices, so it never runs as part of a
report build: `fetched_price_files` runs in `fetch_prices_job` (or when it is materialized on its
own in the UI); in any run that also builds other assets it skips itself with a log line, so
"materialize everything" stays offline. The raw_prices observation then sees the new files.
"""

import dagster as dg

from pipelines.config import Paths
from pipelines.ingest.price_fetch import (
    AWS_SPOT_ADVISOR_URL, AWS_URL, AZURE_URL, GCP_URL, Endpoints, FetchError, fetch_prices,
)

# (provider, region) fetched by the job; edit here to add regions.
REGIONS = [("aws", "us-east-1"), ("azure", "eastus"), ("gcp", "us-central1")]

FETCH_JOB = "fetch_prices_job"


class PriceFetchConfig(dg.Config):
    """Base URLs of the price APIs (tests point them at a local server)."""

    aws_url: str = AWS_URL
    azure_url: str = AZURE_URL
    gcp_url: str = GCP_URL
    aws_spot_advisor_url: str = AWS_SPOT_ADVISOR_URL
    timeout_seconds: float = 120.0


def _asked_for(context: dg.AssetExecutionContext) -> bool:
    """True in fetch_prices_job, or in a run that materializes this asset and nothing else."""
    if context.run.job_name == FETCH_JOB:
        return True
    return set(context.job_def.asset_layer.selected_asset_keys) == {context.asset_key}


@dg.asset(
    group_name="raw",
    kinds={"python"},
    output_required=False,
    description="Today's price lists downloaded from the AWS Price List (EC2 offer with reserved terms, savings "
                "plans), the AWS spot advisor, Azure Retail Prices (with reservations, savings plans, spot) and GCP "
                "Cloud Billing Catalog (with spot and commitment SKUs) APIs into RAW_DIR/prices as dated snapshots "
                "(never overwriting one). Runs only in fetch_prices_job; GCP needs GCP_API_KEY; AWS spot history "
                "needs AWS credentials and is skipped with a message.",
)
def fetched_price_files(context: dg.AssetExecutionContext, config: PriceFetchConfig):
    if not _asked_for(context):
        context.log.info("price fetch skipped: it runs only in fetch_prices_job or when materialized alone")
        return
    raw = Paths.from_env().raw_dir
    endpoints = Endpoints(aws=config.aws_url, azure=config.azure_url, gcp=config.gcp_url,
                          aws_spot_advisor=config.aws_spot_advisor_url)
    try:
        report = fetch_prices(raw, REGIONS, endpoints=endpoints, timeout=config.timeout_seconds)
    except FetchError as exc:
        raise dg.Failure(description=f"fetching today's price lists failed: {exc}", allow_retries=False) from None
    for message in report.messages:
        context.log.info(message)
    yield dg.MaterializeResult(metadata={
        "saved": dg.MetadataValue.json([p.name for p in report.saved]),
        "existing": dg.MetadataValue.json([p.name for p in report.existing]),
        "skipped": dg.MetadataValue.json(report.skipped),
        "folder": dg.MetadataValue.path(str(raw / "prices")),
    })


fetch_prices_job = dg.define_asset_job(
    FETCH_JOB,
    selection=dg.AssetSelection.assets(fetched_price_files),
    description="Download new price snapshots into raw/prices (reaches the internet; run on demand).",
)
