"""Human names for benchmarks, providers and instances."""

from pipelines.domain import offers

BENCHMARKS = {
    "resnet": "ResNet-50 (image classification, ImageNet)",
    "bert": "BERT-Large (language model, Wikipedia)",
    "dlrm": "DLRM (recommendation, Criteo 1TB)",
    "dlrm_dcnv2": "DLRM DCNv2 (recommendation, Criteo 4TB)",
    "maskrcnn": "Mask R-CNN (object segmentation, COCO)",
    "ssd": "SSD (object detection)",
    "rnnt": "RNN-T (speech recognition, LibriSpeech)",
    "unet3d": "3D U-Net (medical imaging, KiTS19)",
    "minigo": "MiniGo (reinforcement learning)",
    "gpt3": "GPT-3 175B (language model)",
    "llama2_70b_lora": "Llama 2 70B LoRA (fine-tuning)",
    "stable_diffusion": "Stable Diffusion (text to image)",
    "retinanet": "RetinaNet (object detection, OpenImages)",
    "rgat": "R-GAT (graph neural network, IGBH)",
    "llama31_405b": "Llama 3.1 405B (language model pretraining)",
    "llama31_8b": "Llama 3.1 8B (language model pretraining)",
    "flux1": "FLUX.1 (text to image)",
    "deepseekv3_671b": "DeepSeek-V3 671B (mixture-of-experts pretraining)",
    "gpt_oss_20b": "GPT-OSS 20B (mixture-of-experts pretraining)",
}

SHORT_BENCHMARKS = {"resnet": "ResNet-50", "bert": "BERT-Large", "dlrm": "DLRM"}

PROVIDERS = {"aws": "AWS", "gcp": "GCP", "azure": "Azure", "lambda": "Lambda", "nebius": "Nebius", "oci": "OCI",
             "runpod": "RunPod", "vast": "Vast.ai", "verda": "Verda", "hyperstack": "Hyperstack", "cudo": "Cudo",
             "mithril": "Mithril", "hyperbolic": "Hyperbolic", "lium": "Lium", "jarvislabs": "JarvisLabs",
             "primeintellect": "Prime Intellect", "seeweb": "Seeweb", "shadeform": "Shadeform",
             "spheron": "Spheron", "yotta": "Yotta", "daytona": "Daytona"}
# The offer kinds a table tags (their tooltip says what the price is); list, spot and commitment prices
# are the provider's own, which the pricing option column already says.
TAGGED_KINDS = (offers.QUOTE, offers.MARKETPLACE, offers.AUCTION)


def offer_tag_title(kind: str | None) -> str | None:
    """The tooltip of a tagged offer's tag (domain/offers.MEANING); None for a provider's own price."""
    return offers.meaning(kind) if kind in TAGGED_KINDS else None


def benchmark(name: str) -> str:
    return BENCHMARKS.get(name, name)


def short_benchmark(name: str) -> str:
    return SHORT_BENCHMARKS.get(name, BENCHMARKS.get(name, name).split(" (")[0])


def provider(name: str) -> str:
    return PROVIDERS.get(name, name)


def instance(provider_name: str, instance_type: str) -> str:
    """"AWS p4d.24xlarge": how both documents name a cloud instance."""
    return f"{provider(provider_name)} {instance_type}"


# Columns that some inputs have and others not yet (divisions in the atlas, pricing models in price
# books): a row that has one is filterable by it in the web edition (records.FACETS).
OPTIONAL_FACETS = (("division", "Division"), ("pricing_model", "Pricing model"))


def optional_facets(row: dict) -> tuple[tuple[str, str], ...]:
    """(filter, value) of the row's optional facet columns that hold a value ("on_demand" reads "on demand")."""
    return tuple((name, str(row[key]).replace("_", " ")) for key, name in OPTIONAL_FACETS if row.get(key))


def instance_of(row) -> str:
    """The instance of a row that has provider and instance_type columns."""
    return instance(row["provider"], row["instance_type"])
