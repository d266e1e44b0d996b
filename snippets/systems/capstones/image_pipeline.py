"""System design: the throughput arithmetic for a 100 TB image pipeline feeding multi-node training."""

# --8<-- [start:demo]
dataset_bytes = 100e12
avg_image = 150e3  # bytes per JPEG
images = dataset_bytes / avg_image
print(f"{images:.2e} images")
# > 6.67e+08 images

gpus, per_gpu = 256, 1500  # images/s each GPU consumes for this model
need = gpus * per_gpu
print(f"{need:,} images/s = {need * avg_image / 1e9:.1f} GB/s from storage")
# > 384,000 images/s = 57.6 GB/s from storage
print(f"one epoch in {images / need / 60:.0f} min")
# > one epoch in 29 min

# ~1 GB tar shards: large sequential reads, one file open per thousands of
# images
shard = 1e9
shards = dataset_bytes / shard
print(f"{shards:,.0f} shards, {shards / gpus:.0f} per rank per epoch")
# > 100,000 shards, 391 per rank per epoch

# JPEG decode + augment, images/s per CPU core (measure yours)
decode_per_core = 400
cores = 8 * per_gpu / decode_per_core
print(f"{cores:.0f} CPU cores per 8-GPU node just to decode")
# > 30 CPU cores per 8-GPU node just to decode
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert need == 384_000 and abs(need * avg_image - 57.6e9) < 1
    assert round(images / need / 60) == 29
    assert 8 * per_gpu / decode_per_core == 30


if __name__ == "__main__":
    _check()
