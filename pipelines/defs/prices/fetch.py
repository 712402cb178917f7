"""The fetch of new price snapshots (the GPU clouds' public catalogs, the big three's price lists), as its own job.

Fetching reaches the internet and adds files to raw/prices, so it never runs as part of a
report build: `fetched_price_files` runs in `fetch_prices_job` (or when it is materialized on its
own in the UI); in any run that also builds other assets it skips itself with a log line, so
"materialize everything" stays offline. The raw_prices observation then sees the new files.

Each source is fetched on its own (ingest/fetch_all.py): when one fails or a catalog is kept aside,
the others' files stay and the step fails with every such line, its metadata naming what was saved.
"""

import dagster as dg

from pipelines.config import Paths
from pipelines.ingest.fetch_all import Choice, fetch_all
from pipelines.ingest.price_fetch import AWS_SPOT_ADVISOR_URL, AWS_URL, AZURE_URL, GCP_URL, Endpoints, FetchError

# (provider, region) fetched by the job; edit here to add regions.
REGIONS = [("aws", "us-east-1"), ("azure", "eastus"), ("gcp", "us-central1")]

FETCH_JOB = "fetch_prices_job"


class PriceFetchConfig(dg.Config):
    """Base URLs of the price APIs (tests point them at a local server); what to fetch (None: the settings
    PRICE_SOURCES, SKYPILOT_CLOUDS, SKYPILOT_CATALOG_URL, else their defaults)."""

    aws_url: str = AWS_URL
    azure_url: str = AZURE_URL
    gcp_url: str = GCP_URL
    aws_spot_advisor_url: str = AWS_SPOT_ADVISOR_URL
    timeout_seconds: float = 120.0
    price_sources: str | None = None
    skypilot_clouds: str | None = None
    skypilot_catalog_url: str | None = None


def _asked_for(context: dg.AssetExecutionContext) -> bool:
    """True in fetch_prices_job, or in a run that materializes this asset and nothing else."""
    if context.run.job_name == FETCH_JOB:
        return True
    return set(context.job_def.asset_layer.selected_asset_keys) == {context.asset_key}


@dg.asset(
    group_name="raw",
    kinds={"python"},
    output_required=False,
    description="Today's prices: every GPU cloud's public catalog (SkyPilot's <cloud>/vms.csv, GPU rows only, into "
                "prices/skypilot_<date>/<cloud>/; one whose GPU rows fell by more than half is kept aside in "
                "prices/.rejected/), and the big three's price lists: the AWS Price List (EC2 offer with reserved "
                "terms, savings plans), the AWS spot advisor, Azure Retail Prices (with reservations, savings plans, "
                "spot) and GCP Cloud Billing Catalog (with spot and commitment SKUs), into RAW_DIR/prices as dated "
                "snapshots (never overwriting one). PRICE_SOURCES and SKYPILOT_CLOUDS choose. Runs only in "
                "fetch_prices_job; GCP needs GCP_API_KEY; AWS spot history needs AWS credentials and is skipped "
                "with a message.",
)
def fetched_price_files(context: dg.AssetExecutionContext, config: PriceFetchConfig):
    if not _asked_for(context):
        context.log.info("price fetch skipped: it runs only in fetch_prices_job or when materialized alone")
        return
    raw = Paths.from_env().raw_dir
    endpoints = Endpoints(aws=config.aws_url, azure=config.azure_url, gcp=config.gcp_url,
                          aws_spot_advisor=config.aws_spot_advisor_url)
    try:
        choice = Choice.from_env(config.price_sources, config.skypilot_clouds, config.skypilot_catalog_url)
        report = fetch_all(raw, choice, REGIONS, endpoints=endpoints, timeout=config.timeout_seconds)
    except FetchError as exc:
        raise dg.Failure(description=f"fetching today's price lists failed: {exc}", allow_retries=False) from None
    for message in report.messages:
        context.log.info(message)
    metadata = _metadata(report, raw / "prices")
    problems = report.failed + report.rejected
    if problems:
        # the files fetched stay; the step fails so that the run (and the schedule's) shows what did not arrive
        raise dg.Failure(description=f"{len(problems)} price download(s) failed or kept aside: {'; '.join(problems)}",
                         metadata=metadata, allow_retries=False)
    yield dg.MaterializeResult(metadata=metadata)


def _metadata(report, prices) -> dict:
    """What the fetch did; files as paths relative to the price folder (skypilot_<date>/<cloud>/vms.csv)."""
    return {
        "saved": dg.MetadataValue.json([p.relative_to(prices).as_posix() for p in report.saved]),
        "existing": dg.MetadataValue.json([p.relative_to(prices).as_posix() for p in report.existing]),
        "skipped": dg.MetadataValue.json(report.skipped),
        "failed": dg.MetadataValue.json(report.failed),
        "rejected": dg.MetadataValue.json(report.rejected),
        "folder": dg.MetadataValue.path(str(prices)),
    }


fetch_prices_job = dg.define_asset_job(
    FETCH_JOB,
    selection=dg.AssetSelection.assets(fetched_price_files),
    description="Download new price snapshots into raw/prices (reaches the internet; run on demand).",
)
