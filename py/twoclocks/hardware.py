"""Presets for the roofline model: accelerators, model shapes and number formats.

Units: FLOP/s (``*_flops_per_s``), bytes per second (``*_bytes_per_s``), bytes (``*_bytes``); parameter
counts and shapes are plain integers. Every figure is dense (no 2:4 sparsity) and is the vendor's
datasheet number, not a measurement; each preset's ``source`` says where it comes from. Memory sizes
are the datasheet's decimal gigabytes (80 GB = 80e9 bytes).

Number formats: weights are stored as ``bf16`` (2 bytes), ``fp8`` (1 byte), ``int8`` or ``int4`` (each
with its group-wise scales, see ``BYTES_PER_WEIGHT``); the KV cache as ``bf16`` or ``fp8``. ``fp8`` weights
mean W8A8, computed on FP8 tensor cores, so they are legal only on an accelerator that has them
(``fp8_flops_per_s`` not ``None``); ``bf16``, ``int8`` and ``int4`` weights (W8A16 and W4A16, dequantised
on the fly) are computed at the bf16 rate. Quantisers leave the embedding table and the LM head in 16
bits (GPTQ, AWQ, TensorRT-LLM and vLLM FP8 by default), so only the transformer blocks' weights take the
smaller format (``TABLE_BYTES_PER_WEIGHT``).
"""

from __future__ import annotations

from dataclasses import dataclass

WEIGHT_DTYPES = ("bf16", "fp8", "int8", "int4")
"""Weight formats the roofline model accepts."""

KV_DTYPES = ("bf16", "fp8")
"""KV-cache formats the roofline model accepts."""

TENSOR_PARALLEL_DEGREES = (1, 2, 4, 8)
"""Tensor-parallel degrees (devices a model is split across) the roofline model accepts."""

INT8_GROUP_WEIGHTS = 128
"""Weights sharing one 16-bit scale in ``int8`` (GPTQ-Int8's group of 128; per-channel int8 is closer to 1 byte)."""

INT4_GROUP_WEIGHTS = 32
"""Weights sharing one 16-bit scale in ``int4`` (GGML ``Q4_0``, MLC ``q4f16_1``, gpt-fast G=32; torchao's
group of 64 with a 16-bit scale and a 16-bit zero point is the same 4.5 bits)."""

BYTES_PER_WEIGHT = {
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0 + 2.0 / INT8_GROUP_WEIGHTS,
    "int4": 0.5 + 2.0 / INT4_GROUP_WEIGHTS,
}
"""Bytes per stored block weight, group-wise scales included: ``int8`` is 8.125 bits, ``int4`` 4.5 bits
(group-128 AWQ/GPTQ is about 4.25 bits; llama.cpp ``Q4_K_M`` averages about 4.6)."""

TABLE_BYTES_PER_WEIGHT = 2.0
"""Bytes per weight of the embedding table and LM head, whatever the blocks' format (kept in 16 bits)."""

BYTES_PER_KV_VALUE = {"bf16": 2.0, "fp8": 1.0}
"""Bytes per stored key or value element in the KV cache."""

INTERCONNECTS = ("nvlink", "infinity-fabric", "pcie")
"""Kinds of device-to-device link: a GPU-to-GPU fabric (NVLink, AMD Infinity Fabric) or only PCIe, where
tensor-parallel all-reduces run through the host's PCIe switches (``roofline.PCIE_ALLREDUCE_EFFICIENCY``)."""


@dataclass(frozen=True)
class Accelerator:
    """One accelerator (a single GPU) as the roofline model sees it.

    Attributes:
        id: preset key, e.g. ``"h100-sxm"``.
        name: display name, e.g. ``"NVIDIA H100 SXM"``.
        bf16_flops_per_s: dense BF16 tensor peak with FP32 accumulate, FLOP/s.
        fp8_flops_per_s: dense FP8 tensor peak, FLOP/s; ``None`` if the device has no FP8 tensor cores.
        bandwidth_bytes_per_s: peak memory bandwidth, bytes/s.
        memory_bytes: memory size, bytes.
        vector_flops_per_s: dense FP32 rate of the ordinary (non-tensor) cores, FLOP/s: the roof for
            dequantising int8/int4 weights at batch 1, which runs on these cores.
        interconnect_bytes_per_s: device-to-device bandwidth in one direction, bytes/s (NVLink where
            fitted, else PCIe 4.0 x16); used only for the tensor-parallel all-reduce.
        source: where the figures come from.
        interconnect: the kind of that link, one of ``INTERCONNECTS``.
    """

    id: str
    name: str
    bf16_flops_per_s: float
    fp8_flops_per_s: float | None
    bandwidth_bytes_per_s: float
    memory_bytes: float
    vector_flops_per_s: float
    interconnect_bytes_per_s: float
    source: str
    interconnect: str

    def __post_init__(self) -> None:
        if self.interconnect not in INTERCONNECTS:
            valid = ", ".join(INTERCONNECTS)
            raise ValueError(f"interconnect must be one of {valid}; got {self.interconnect!r}")

    def peak_flops_per_s(self, weight_dtype: str) -> float:
        """Dense tensor peak used for ``weight_dtype`` weights, FLOP/s.

        Raises:
            ValueError: if ``weight_dtype`` is unknown, or is ``"fp8"`` on a device without FP8.
        """
        check_weight_dtype(weight_dtype)
        if weight_dtype != "fp8":
            return self.bf16_flops_per_s
        if self.fp8_flops_per_s is None:
            raise ValueError(
                f"weight_dtype 'fp8' needs FP8 tensor cores, which the {self.name} does not have; "
                f"choose one of 'bf16', 'int4'"
            )
        return self.fp8_flops_per_s


@dataclass(frozen=True)
class ModelSpec:
    """The shape of one decoder-only transformer, dense or mixture-of-experts.

    Attributes:
        id: preset key, e.g. ``"llama-3.1-8b"``.
        name: display name, e.g. ``"Llama 3.1 8B"``.
        params: total parameter count (embedding and LM head included).
        layers: transformer blocks.
        hidden_size: model width.
        attention_heads: query heads per layer.
        kv_heads: key/value heads per layer (fewer than ``attention_heads`` with grouped-query attention).
        head_dim: width of one head.
        intermediate_size: MLP width.
        vocab_size: tokenizer vocabulary (rows of the embedding and LM head).
        tied_embeddings: whether the LM head reuses the input embedding matrix.
        context_window_tokens: most tokens (prompt plus output) one sequence may hold, from the
            config's ``max_position_embeddings``; serving engines reject a request whose prompt plus
            ``max_tokens`` exceeds it.
        source: where the figures come from.
        experts: MLP experts per layer (1 for a dense model).
        active_experts: experts each token is routed to (1 for a dense model).
    """

    id: str
    name: str
    params: int
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tied_embeddings: bool
    context_window_tokens: int
    source: str
    experts: int = 1
    active_experts: int = 1

    @property
    def lm_head_params(self) -> int:
        """Weights of the LM head (vocabulary x hidden), read for every token whose logits are needed."""
        return self.vocab_size * self.hidden_size

    @property
    def block_params(self) -> int:
        """Weights in the transformer blocks and final norm: every one multiplies every token.

        ``params`` minus the embedding table and, if untied, the LM head.
        """
        tables = 1 if self.tied_embeddings else 2
        return self.params - tables * self.vocab_size * self.hidden_size

    @property
    def expert_params(self) -> int:
        """Weights of one expert (a gated MLP: gate, up and down projections) in one layer."""
        return 3 * self.hidden_size * self.intermediate_size

    @property
    def active_block_params(self) -> int:
        """Block weights one token multiplies: ``block_params`` less the experts it is not routed to.

        Equal to ``block_params`` for a dense model; Mixtral 8x7B's 2 of 8 experts leave ~12.6e9 of 46.4e9.
        """
        idle = (self.experts - self.active_experts) * self.layers * self.expert_params
        return self.block_params - idle

    def block_params_read(self, tokens: int) -> float:
        """Expected block weights read by a forward pass over ``tokens`` tokens (one sequence).

        Dense models read every weight. In a mixture of experts each token picks ``k`` of ``E`` experts
        per layer; with routing taken as uniform and independent, an expert is untouched by ``t`` tokens
        with probability ``(1 - k/E)^t``, so a batch-1 decode step (``t = 1``) reads only the ``k`` chosen
        experts and a long prefill reads nearly all of them.
        """
        if self.experts == 1:
            return float(self.block_params)
        untouched = (1 - self.active_experts / self.experts) ** tokens
        idle = self.experts * untouched * self.layers * self.expert_params
        return self.block_params - idle

    def kv_values_per_token(self) -> int:
        """Key and value elements one token adds to the cache: ``2 x layers x kv_heads x head_dim``."""
        return 2 * self.layers * self.kv_heads * self.head_dim


_NVLINK4 = 450e9  # NVLink 4 on H100/H200 SXM: 900 GB/s total, 450 GB/s each way.
_PCIE4 = 32e9  # PCIe 4.0 x16: about 32 GB/s each way.
_PCIE5 = 64e9  # PCIe 5.0 x16: about 64 GB/s each way.

ACCELERATORS = {
    a.id: a
    for a in (
        Accelerator(
            id="h100-sxm",
            name="NVIDIA H100 SXM",
            bf16_flops_per_s=989.4e12,
            fp8_flops_per_s=1978.9e12,
            bandwidth_bytes_per_s=3.35e12,
            memory_bytes=80e9,
            vector_flops_per_s=67e12,  # datasheet FP32 67 TFLOPS
            interconnect_bytes_per_s=_NVLINK4,
            interconnect="nvlink",
            source=(
                "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column (BF16 1,979 and FP8 3,958 "
                "TFLOPS are with sparsity; dense is half): https://www.nvidia.com/en-us/data-center/h100/"
            ),
        ),
        Accelerator(
            id="h200",
            name="NVIDIA H200 SXM",
            bf16_flops_per_s=989.4e12,
            fp8_flops_per_s=1978.9e12,
            bandwidth_bytes_per_s=4.8e12,
            memory_bytes=141e9,
            vector_flops_per_s=67e12,  # datasheet FP32 67 TFLOPS
            interconnect_bytes_per_s=_NVLINK4,
            interconnect="nvlink",
            source=(
                "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column (same Hopper compute as H100 "
                "SXM; sparse figures halved): https://www.nvidia.com/en-us/data-center/h200/"
            ),
        ),
        Accelerator(
            id="gh200",
            name="NVIDIA GH200 144GB",
            bf16_flops_per_s=989.4e12,
            fp8_flops_per_s=1978.9e12,
            bandwidth_bytes_per_s=4.9e12,
            memory_bytes=144e9,
            vector_flops_per_s=67e12,  # datasheet FP32 67 TFLOPS
            interconnect_bytes_per_s=_NVLINK4,
            interconnect="nvlink",
            source=(
                "NVIDIA GH200 Grace Hopper Superchip datasheet, the Hopper GPU in its HBM3e version "
                "(144 GB at 4.9 TB/s; the HBM3 version has 96 GB at 4 TB/s); same Hopper compute as "
                "H100 SXM (BF16 1,979 and FP8 3,958 TFLOPS are with sparsity; dense is half); NVLink 4 "
                "900 GB/s total between superchips (GH200 NVL2, NVL32). Only the GPU's HBM is modelled: "
                "the Grace CPU's LPDDR5X over NVLink-C2C is not: "
                "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"
            ),
        ),
        Accelerator(
            id="a100-80gb",
            name="NVIDIA A100 80GB SXM",
            bf16_flops_per_s=312e12,
            fp8_flops_per_s=None,
            bandwidth_bytes_per_s=2.039e12,
            memory_bytes=80e9,
            vector_flops_per_s=19.5e12,  # datasheet FP32 19.5 TFLOPS
            interconnect_bytes_per_s=300e9,
            interconnect="nvlink",
            source=(
                "NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column (BF16 312 TFLOPS dense, "
                "2,039 GB/s, NVLink 600 GB/s total; no FP8): https://www.nvidia.com/en-us/data-center/a100/"
            ),
        ),
        Accelerator(
            id="a100-40gb",
            name="NVIDIA A100 40GB SXM",
            bf16_flops_per_s=312e12,
            fp8_flops_per_s=None,
            bandwidth_bytes_per_s=1.555e12,
            memory_bytes=40e9,
            vector_flops_per_s=19.5e12,  # datasheet FP32 19.5 TFLOPS
            interconnect_bytes_per_s=300e9,
            interconnect="nvlink",
            source=(
                "NVIDIA A100 Tensor Core GPU datasheet, A100 40GB SXM column (BF16 312 TFLOPS dense, "
                "1,555 GB/s HBM2, 40 GB, NVLink 600 GB/s total; no FP8): "
                "https://www.nvidia.com/en-us/data-center/a100/"
            ),
        ),
        Accelerator(
            id="l4",
            name="NVIDIA L4",
            bf16_flops_per_s=121e12,
            fp8_flops_per_s=242.5e12,
            bandwidth_bytes_per_s=300e9,
            memory_bytes=24e9,
            vector_flops_per_s=30.3e12,  # datasheet FP32 30.3 TFLOPS
            interconnect_bytes_per_s=_PCIE4,
            interconnect="pcie",
            source=(
                "NVIDIA L4 Tensor Core GPU datasheet (BF16 242 and FP8 485 TFLOPS are with sparsity; "
                "300 GB/s; 24 GB; PCIe 4.0 x16): https://www.nvidia.com/en-us/data-center/l4/"
            ),
        ),
        Accelerator(
            id="rtx-4090",
            name="NVIDIA GeForce RTX 4090",
            bf16_flops_per_s=165.2e12,
            fp8_flops_per_s=330.3e12,
            bandwidth_bytes_per_s=1.008e12,
            memory_bytes=24e9,
            vector_flops_per_s=82.6e12,  # datasheet FP32 82.6 TFLOPS
            interconnect_bytes_per_s=_PCIE4,
            interconnect="pcie",
            source=(
                "NVIDIA Ada Lovelace GPU Architecture whitepaper, appendix table for GeForce RTX 4090 "
                "(dense BF16 and FP8 tensor TFLOPS with FP32 accumulate; 1,008 GB/s GDDR6X; 24 GB; "
                "no NVLink): https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
                "nvidia-ada-gpu-architecture.pdf"
            ),
        ),
        Accelerator(
            id="h100-pcie",
            name="NVIDIA H100 PCIe",
            bf16_flops_per_s=756.5e12,
            fp8_flops_per_s=1513e12,
            bandwidth_bytes_per_s=2.0e12,
            memory_bytes=80e9,
            vector_flops_per_s=51e12,  # datasheet FP32 51 TFLOPS
            interconnect_bytes_per_s=_PCIE5,
            interconnect="pcie",
            source=(
                "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column (BF16 1,513 and FP8 3,026 TFLOPS "
                "are with sparsity; dense is half; 2 TB/s; 80 GB; PCIe Gen5 128 GB/s, NVLink bridges join "
                "only pairs, so PCIe is modelled): https://www.nvidia.com/en-us/data-center/h100/"
            ),
        ),
        Accelerator(
            id="h100-nvl",
            name="NVIDIA H100 NVL",
            bf16_flops_per_s=835.5e12,
            fp8_flops_per_s=1670.5e12,
            bandwidth_bytes_per_s=3.9e12,
            memory_bytes=94e9,
            vector_flops_per_s=60e12,  # datasheet FP32 60 TFLOPS
            interconnect_bytes_per_s=_PCIE5,
            interconnect="pcie",
            source=(
                "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column, per GPU (BF16 1,671 and FP8 "
                "3,341 TFLOPS are with sparsity; dense is half; 3.9 TB/s; 94 GB; NVLink bridges of "
                "600 GB/s join only pairs, so PCIe Gen5 is modelled, as for the H100 PCIe): "
                "https://www.nvidia.com/en-us/data-center/h100/"
            ),
        ),
        Accelerator(
            id="l40s",
            name="NVIDIA L40S",
            bf16_flops_per_s=362.05e12,
            fp8_flops_per_s=733e12,
            bandwidth_bytes_per_s=864e9,
            memory_bytes=48e9,
            vector_flops_per_s=91.6e12,  # datasheet FP32 91.6 TFLOPS
            interconnect_bytes_per_s=_PCIE4,
            interconnect="pcie",
            source=(
                "NVIDIA L40S GPU datasheet (BF16 362.05 dense / 733 sparse TFLOPS, FP8 733 dense / 1,466 "
                "sparse; 864 GB/s GDDR6; 48 GB; PCIe Gen4 x16, no NVLink): "
                "https://www.nvidia.com/en-us/data-center/l40s/"
            ),
        ),
        Accelerator(
            id="l40",
            name="NVIDIA L40",
            bf16_flops_per_s=181.05e12,
            fp8_flops_per_s=362e12,
            bandwidth_bytes_per_s=864e9,
            memory_bytes=48e9,
            vector_flops_per_s=90.5e12,  # datasheet FP32 90.5 TFLOPS
            interconnect_bytes_per_s=_PCIE4,
            interconnect="pcie",
            source=(
                "NVIDIA L40 GPU datasheet (BF16 181.05 dense / 362.1 sparse TFLOPS, FP8 362 dense / 724 "
                "sparse; 864 GB/s GDDR6; 48 GB; PCIe Gen4 x16, no NVLink): "
                "https://www.nvidia.com/en-us/data-center/l40/"
            ),
        ),
        Accelerator(
            id="mi300x",
            name="AMD Instinct MI300X",
            bf16_flops_per_s=1307.4e12,
            fp8_flops_per_s=2614.9e12,
            bandwidth_bytes_per_s=5.3e12,
            memory_bytes=192e9,
            vector_flops_per_s=163.4e12,  # datasheet FP32 vector 163.4 TFLOPS (81.7 is FP64 vector)
            interconnect_bytes_per_s=64e9,
            interconnect="infinity-fabric",
            source=(
                "AMD Instinct MI300X data sheet (BF16 1,307.4 and FP8 2,614.9 TFLOPS dense; 5.3 TB/s HBM3; "
                "192 GB; Infinity Fabric 128 GB/s per link, both directions, one link to each peer): "
                "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
            ),
        ),
        Accelerator(
            id="mi325x",
            name="AMD Instinct MI325X",
            bf16_flops_per_s=1307.4e12,
            fp8_flops_per_s=2614.9e12,
            bandwidth_bytes_per_s=6e12,
            memory_bytes=256e9,
            vector_flops_per_s=163.4e12,  # datasheet FP32 vector 163.4 TFLOPS
            interconnect_bytes_per_s=64e9,
            interconnect="infinity-fabric",
            source=(
                "AMD Instinct MI325X data sheet (BF16 1,307.4 and FP8 2,614.9 TFLOPS dense; 6 TB/s HBM3E; "
                "256 GB; FP32 vector 163.4 TFLOPS; Infinity Fabric 128 GB/s per link, both directions, "
                "one link to each of seven peers): "
                "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"
            ),
        ),
        Accelerator(
            id="b200",
            name="NVIDIA B200 (HGX)",
            bf16_flops_per_s=2.25e15,
            fp8_flops_per_s=4.5e15,
            bandwidth_bytes_per_s=8e12,
            memory_bytes=180e9,
            vector_flops_per_s=80e12,  # datasheet FP32 80 TFLOPS
            interconnect_bytes_per_s=900e9,
            interconnect="nvlink",
            source=(
                "NVIDIA HGX B200 specifications, per GPU of eight (BF16 36 and FP8 72 PFLOPS for eight "
                "GPUs are with sparsity: 2.25 and 4.5 PFLOPS dense each; 1.44 TB HBM3e is 180 GB each; "
                "8 TB/s; NVLink 5 1.8 TB/s total, 900 GB/s each way): "
                "https://www.nvidia.com/en-us/data-center/hgx/"
            ),
        ),
    )
}
"""Accelerator presets by id."""


def _hf(repo: str, note: str = "") -> str:
    return (
        f"Hugging Face {repo} config.json and the model page's safetensors parameter count"
        f"{'; ' + note if note else ''}: https://huggingface.co/{repo}/blob/main/config.json"
    )


_QWEN3_MOE = (
    "every layer is a mixture of experts (decoder_sparse_step 1, no mlp_only_layers, no shared "
    "expert), so intermediate_size here is the config's moe_intermediate_size; head_dim 128 is set "
    "apart from hidden_size / heads"
)

_GPT_OSS = (
    "params from Table 1 of the gpt-oss model card (https://arxiv.org/abs/2508.10925). Not modelled: "
    "every other layer attends over a 128-token sliding window (the roofline charges full attention "
    "and a full KV cache to every layer, so long contexts cost more than they do), attention sinks "
    "and biases, and the MXFP4 expert weights it ships in (4.25 bits, attention kept in bf16): "
    "weight_dtype int4 (4.5 bits for every block weight, attention included) is the nearest, bf16 "
    "the checkpoint dequantised"
)


MODELS = {
    m.id: m
    for m in (
        ModelSpec(
            id="llama-3.2-1b",
            name="Llama 3.2 1B",
            params=1_235_814_400,
            layers=16,
            hidden_size=2048,
            attention_heads=32,
            kv_heads=8,
            head_dim=64,
            intermediate_size=8192,
            vocab_size=128_256,
            tied_embeddings=True,
            context_window_tokens=131_072,
            source=_hf("meta-llama/Llama-3.2-1B"),
        ),
        ModelSpec(
            id="llama-3.2-3b",
            name="Llama 3.2 3B",
            params=3_212_749_824,
            layers=28,
            hidden_size=3072,
            attention_heads=24,
            kv_heads=8,
            head_dim=128,
            intermediate_size=8192,
            vocab_size=128_256,
            tied_embeddings=True,
            context_window_tokens=131_072,
            source=_hf("meta-llama/Llama-3.2-3B"),
        ),
        ModelSpec(
            id="mistral-7b",
            name="Mistral 7B v0.3",
            params=7_248_023_552,
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14_336,
            vocab_size=32_768,
            tied_embeddings=False,
            context_window_tokens=32_768,
            source=_hf("mistralai/Mistral-7B-v0.3"),
        ),
        ModelSpec(
            id="llama-3.1-8b",
            name="Llama 3.1 8B",
            params=8_030_261_248,
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14_336,
            vocab_size=128_256,
            tied_embeddings=False,
            context_window_tokens=131_072,
            source=_hf("meta-llama/Llama-3.1-8B"),
        ),
        ModelSpec(
            id="llama-3.1-70b",
            name="Llama 3.1 70B",
            params=70_553_706_496,
            layers=80,
            hidden_size=8192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=28_672,
            vocab_size=128_256,
            tied_embeddings=False,
            context_window_tokens=131_072,
            source=_hf("meta-llama/Llama-3.1-70B"),
        ),
        ModelSpec(
            id="llama-3.1-405b",
            name="Llama 3.1 405B",
            params=405_853_388_800,
            layers=126,
            hidden_size=16_384,
            attention_heads=128,
            kv_heads=8,
            head_dim=128,
            intermediate_size=53_248,
            vocab_size=128_256,
            tied_embeddings=False,
            context_window_tokens=131_072,
            source=_hf(
                "meta-llama/Llama-3.1-405B",
                "8 KV heads as in the Llama 3 paper's Table 3 (the config first published said 16)",
            ),
        ),
        ModelSpec(
            id="llama-2-7b",
            name="Llama 2 7B",
            params=6_738_415_616,
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=32,
            head_dim=128,
            intermediate_size=11_008,
            vocab_size=32_000,
            tied_embeddings=False,
            context_window_tokens=4_096,
            source=_hf("meta-llama/Llama-2-7b-hf"),
        ),
        ModelSpec(
            id="llama-2-13b",
            name="Llama 2 13B",
            params=13_015_864_320,
            layers=40,
            hidden_size=5120,
            attention_heads=40,
            kv_heads=40,
            head_dim=128,
            intermediate_size=13_824,
            vocab_size=32_000,
            tied_embeddings=False,
            context_window_tokens=4_096,
            source=_hf("meta-llama/Llama-2-13b-hf"),
        ),
        ModelSpec(
            id="llama-2-70b",
            name="Llama 2 70B",
            params=68_976_648_192,
            layers=80,
            hidden_size=8192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=28_672,
            vocab_size=32_000,
            tied_embeddings=False,
            context_window_tokens=4_096,
            source=_hf("meta-llama/Llama-2-70b-hf"),
        ),
        ModelSpec(
            id="qwen2.5-0.5b",
            name="Qwen2.5 0.5B",
            params=494_032_768,
            layers=24,
            hidden_size=896,
            attention_heads=14,
            kv_heads=2,
            head_dim=64,
            intermediate_size=4_864,
            vocab_size=151_936,
            tied_embeddings=True,
            context_window_tokens=32_768,
            source=_hf("Qwen/Qwen2.5-0.5B-Instruct"),
        ),
        ModelSpec(
            id="qwen2.5-7b",
            name="Qwen2.5 7B",
            params=7_615_616_512,
            layers=28,
            hidden_size=3584,
            attention_heads=28,
            kv_heads=4,
            head_dim=128,
            intermediate_size=18_944,
            vocab_size=152_064,
            tied_embeddings=False,
            context_window_tokens=32_768,
            source=_hf("Qwen/Qwen2.5-7B-Instruct"),
        ),
        ModelSpec(
            id="qwen2.5-72b",
            name="Qwen2.5 72B",
            params=72_706_203_648,
            layers=80,
            hidden_size=8192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=29_568,
            vocab_size=152_064,
            tied_embeddings=False,
            context_window_tokens=32_768,
            source=_hf("Qwen/Qwen2.5-72B-Instruct"),
        ),
        ModelSpec(
            id="qwen3-8b",
            name="Qwen3 8B",
            params=8_190_735_360,
            layers=36,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=12_288,
            vocab_size=151_936,
            tied_embeddings=False,
            context_window_tokens=40_960,
            source=_hf("Qwen/Qwen3-8B"),
        ),
        ModelSpec(
            id="qwen3-32b",
            name="Qwen3 32B",
            params=32_762_123_264,
            layers=64,
            hidden_size=5120,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=25_600,
            vocab_size=151_936,
            tied_embeddings=False,
            context_window_tokens=40_960,
            source=_hf("Qwen/Qwen3-32B", "head_dim 128 with 64 heads is wider than hidden_size 5,120"),
        ),
        ModelSpec(
            id="mixtral-8x7b",
            name="Mixtral 8x7B",
            params=46_702_792_704,
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14_336,
            vocab_size=32_000,
            tied_embeddings=False,
            context_window_tokens=32_768,
            source=_hf("mistralai/Mixtral-8x7B-v0.1"),
            experts=8,
            active_experts=2,
        ),
        ModelSpec(
            id="qwen3-30b-a3b",
            name="Qwen3 30B-A3B",
            params=30_532_122_624,
            layers=48,
            hidden_size=2048,
            attention_heads=32,
            kv_heads=4,
            head_dim=128,
            intermediate_size=768,
            vocab_size=151_936,
            tied_embeddings=False,
            context_window_tokens=40_960,
            source=_hf("Qwen/Qwen3-30B-A3B", _QWEN3_MOE),
            experts=128,
            active_experts=8,
        ),
        ModelSpec(
            id="qwen3-235b-a22b",
            name="Qwen3 235B-A22B",
            params=235_093_634_560,
            layers=94,
            hidden_size=4096,
            attention_heads=64,
            kv_heads=4,
            head_dim=128,
            intermediate_size=1_536,
            vocab_size=151_936,
            tied_embeddings=False,
            context_window_tokens=40_960,
            source=_hf("Qwen/Qwen3-235B-A22B", _QWEN3_MOE),
            experts=128,
            active_experts=8,
        ),
        ModelSpec(
            id="gpt-oss-20b",
            name="gpt-oss-20b",
            params=20_914_757_184,
            layers=24,
            hidden_size=2880,
            attention_heads=64,
            kv_heads=8,
            head_dim=64,
            intermediate_size=2880,
            vocab_size=201_088,
            tied_embeddings=False,
            context_window_tokens=131_072,
            source=_hf("openai/gpt-oss-20b", _GPT_OSS),
            experts=32,
            active_experts=4,
        ),
        ModelSpec(
            id="gpt-oss-120b",
            name="gpt-oss-120b",
            params=116_829_156_672,
            layers=36,
            hidden_size=2880,
            attention_heads=64,
            kv_heads=8,
            head_dim=64,
            intermediate_size=2880,
            vocab_size=201_088,
            tied_embeddings=False,
            context_window_tokens=131_072,
            source=_hf("openai/gpt-oss-120b", _GPT_OSS),
            experts=128,
            active_experts=4,
        ),
    )
}
"""Model presets by id. Llama 2 7B and 70B are here because published batch-1 latency tables
(``measured_latency.csv``) measured them; Llama 3.3 70B has Llama 3.1 70B's shape. Qwen2.5's configs
say 32,768 positions (their long-context rows use YaRN scaling, which the context window leaves out)."""


def _choose(kind: str, key: object, table: dict):
    if not isinstance(key, str) or key not in table:
        valid = ", ".join(repr(k) for k in table)
        raise ValueError(f"{kind} must be one of {valid}; got {key!r}")
    return table[key]


def get_accelerator(accelerator: str) -> Accelerator:
    """Return the accelerator preset with id ``accelerator``.

    Raises:
        ValueError: naming ``accelerator`` and listing the valid ids, for an unknown id.
    """
    return _choose("accelerator", accelerator, ACCELERATORS)


def get_model(model: str) -> ModelSpec:
    """Return the model preset with id ``model``.

    Raises:
        ValueError: naming ``model`` and listing the valid ids, for an unknown id.
    """
    return _choose("model", model, MODELS)


def check_weight_dtype(weight_dtype: str) -> str:
    """Return ``weight_dtype`` if it is one of ``WEIGHT_DTYPES``.

    Raises:
        ValueError: naming ``weight_dtype`` and listing the valid formats.
    """
    return _choose("weight_dtype", weight_dtype, {d: d for d in WEIGHT_DTYPES})


def check_kv_dtype(kv_dtype: str) -> str:
    """Return ``kv_dtype`` if it is one of ``KV_DTYPES``.

    Raises:
        ValueError: naming ``kv_dtype`` and listing the valid formats.
    """
    return _choose("kv_dtype", kv_dtype, {d: d for d in KV_DTYPES})


def _source_link(source: str) -> str:
    """The preset's source as a Markdown link to the last address it names (the config or datasheet)."""
    url = "https://" + source.rsplit("https://", 1)[1].split()[0]
    return f"[source]({url.rstrip('.,;:)')})"


def _accelerator_row(a: Accelerator) -> str:
    fp8 = "none" if a.fp8_flops_per_s is None else f"{a.fp8_flops_per_s / 1e12:,.1f}"
    cells = [f"`{a.id}`", a.name, f"{a.bf16_flops_per_s / 1e12:,.1f} / {fp8}", f"{a.memory_bytes / 1e9:,.0f} GB",
             f"{a.bandwidth_bytes_per_s / 1e9:,.0f} GB/s", f"{a.vector_flops_per_s / 1e12:,.1f}",
             f"{a.interconnect_bytes_per_s / 1e9:,.0f} GB/s", _source_link(a.source)]
    return "| " + " | ".join(cells) + " |"


def _model_row(m: ModelSpec) -> str:
    per_token = "dense" if m.experts == 1 else (
        f"{(m.active_block_params + m.lm_head_params) / 1e9:,.2f}B ({m.active_experts} of {m.experts} experts)")
    cells = [f"`{m.id}`", m.name, f"{m.params / 1e9:,.2f}B", per_token, str(m.layers),
             f"{m.attention_heads} / {m.kv_heads} x {m.head_dim}", f"{m.context_window_tokens:,}",
             _source_link(m.source)]
    return "| " + " | ".join(cells) + " |"


def presets_markdown() -> str:
    """The README's preset tables, generated from ``ACCELERATORS`` and ``MODELS``: the key figures
    of each preset and a link to its source (the full citation is the preset's ``source``)."""
    rows = [
        "| accelerator | name | BF16 / FP8 TFLOP/s (dense) | memory | bandwidth | FP32 TFLOP/s "
        "| link, one way | |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
        *(_accelerator_row(a) for a in ACCELERATORS.values()),
        "",
        "| model | name | parameters | multiplied per token | layers | heads (query / KV x width) "
        "| context | |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
        *(_model_row(m) for m in MODELS.values()),
    ]
    return "\n".join(rows) + "\n"
