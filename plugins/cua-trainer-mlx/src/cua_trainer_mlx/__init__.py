"""cua-trainer-mlx: LoRA fine-tuning of a checkpoint's language tower with mlx / mlx-lm (``--trainer mlx``)."""

from cua_trainer_mlx.model import model_overrides

__all__ = ["model_overrides"]
