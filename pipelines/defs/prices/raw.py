"""The cloud market's raw inputs: price snapshots and public catalogs, the instance and accelerator catalogs,
and the grid carbon intensity and PUE per region (observable source assets, defs/raw.py)."""

from pipelines.defs.raw import RawInput, observable_assets
from pipelines.ingest.prices.files import price_files

PRICE_INPUTS = {
    # the price files only, as the readers list them: a README or a catalog's SOURCE.md is no price
    "raw_prices": RawInput("prices", "*", "Price snapshots: normalized CSV and the providers' own price lists.",
                           listing=price_files),
    "raw_instances": RawInput("instances.csv", "*", "The instance catalog: every cloud instance, its accelerators and billing."),
    "raw_accelerators": RawInput("accelerators.csv", "*", "The accelerator catalog: names in systems JSON -> model -> cloud model.",
                                 public_facts=True),
    "raw_accelerator_aliases": RawInput("accelerator_aliases.csv", "*", "The public catalogs' accelerator names -> cloud model "
                                                                "(the project's when the data set has none).", public_facts=True),
    "raw_carbon": RawInput("carbon", "*.csv", "Grid carbon intensity per cloud region and data-centre PUE (the project's "
                                      "when the data set has none).", public_facts=True),
}

raw_assets = observable_assets(PRICE_INPUTS)
