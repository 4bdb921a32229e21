"""cua-trainer-ddp: supervised fine-tuning with torch DistributedDataParallel (``--trainer ddp``)."""

__all__: list[str] = []
