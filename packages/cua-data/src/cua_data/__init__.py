"""cua-data: LiteSample rows, their Parquet + image store, converters and the torch Dataset."""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

# The converters subpackage first: importing it later (as the registry does) would rebind the
# package attribute ``converters`` from the function below to the subpackage.
from cua_data import converters as _builtin_converters  # noqa: F401
from cua_data.convert import ConversionReport, Converted, converters, run_conversion
from cua_data.errors import SampleError, StoreError
from cua_data.hub import export_hub, import_hub
from cua_data.images import ImageStore
from cua_data.layout import Partition, find_partitions
from cua_data.lite_actions import from_lite_tool_call, to_lite_tool_call
from cua_data.markers import resolve_dataset
from cua_data.reader import DatasetReader
from cua_data.schema import PLATFORMS, SPLITS, TASK_TYPES, LiteSample, Metadata, RLStep, RLTrace
from cua_data.writer import DatasetWriter, WriteReport

__version__ = "0.1.0"

# What command lines and plugins of other packages use of cua_data's subsystems, imported on first use so
# that importing cua_data stays as light as it was.
if TYPE_CHECKING:
    from cua_data import registry
    from cua_data.adapters import (
        Adapter,
        AdapterParseError,
        HistoryPolicy,
        ParsedOutput,
        Prompt,
        RawOutput,
        Turn,
        as_image,
        data_url,
        merge_roles,
        smart_resize,
    )
    from cua_data.adapters.sft import collate, load_processor, sft_examples
    from cua_data.converters.build import Trajectory
    from cua_data.converters.pyautogui import CodeContext, parse_code
    from cua_data.hookspecs import hookimpl
    from cua_data.layout import TMP_MARK, partition_path
    from cua_data.lite_actions import to_lite_action
    from cua_data.markers import DATASET_MARKER, layout_of, write_marker
    from cua_data.model_folder import PromptSettings, merged, prompt_settings, read_settings, write_model_folder
    from cua_data.png import encode_png
    from cua_data.tiny_models import build_tiny_qwen25_vl

_LAZY = {
    "collate": "cua_data.adapters.sft",
    "load_processor": "cua_data.adapters.sft",
    "sft_examples": "cua_data.adapters.sft",
    "Adapter": "cua_data.adapters",
    "AdapterParseError": "cua_data.adapters",
    "CodeContext": "cua_data.converters.pyautogui",
    "DATASET_MARKER": "cua_data.markers",
    "HistoryPolicy": "cua_data.adapters",
    "ParsedOutput": "cua_data.adapters",
    "Prompt": "cua_data.adapters",
    "PromptSettings": "cua_data.model_folder",
    "RawOutput": "cua_data.adapters",
    "TMP_MARK": "cua_data.layout",
    "Trajectory": "cua_data.converters.build",
    "Turn": "cua_data.adapters",
    "as_image": "cua_data.adapters",
    "build_tiny_qwen25_vl": "cua_data.tiny_models",
    "data_url": "cua_data.adapters",
    "encode_png": "cua_data.png",
    "hookimpl": "cua_data.hookspecs",
    "layout_of": "cua_data.markers",
    "merge_roles": "cua_data.adapters",
    "merged": "cua_data.model_folder",
    "parse_code": "cua_data.converters.pyautogui",
    "partition_path": "cua_data.layout",
    "prompt_settings": "cua_data.model_folder",
    "read_settings": "cua_data.model_folder",
    "smart_resize": "cua_data.adapters",
    "to_lite_action": "cua_data.lite_actions",
    "write_marker": "cua_data.markers",
    "write_model_folder": "cua_data.model_folder",
    "registry": "cua_data.registry",  # a public submodule: the adapter and converter registries
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "DATASET_MARKER",
    "PLATFORMS",
    "SPLITS",
    "TASK_TYPES",
    "TMP_MARK",
    "Adapter",
    "AdapterParseError",
    "CodeContext",
    "ConversionReport",
    "Converted",
    "DatasetReader",
    "DatasetWriter",
    "HistoryPolicy",
    "ImageStore",
    "LiteSample",
    "Metadata",
    "ParsedOutput",
    "Partition",
    "Prompt",
    "PromptSettings",
    "RLStep",
    "RLTrace",
    "RawOutput",
    "SampleError",
    "StoreError",
    "Trajectory",
    "Turn",
    "WriteReport",
    "__version__",
    "as_image",
    "build_tiny_qwen25_vl",
    "collate",
    "converters",
    "data_url",
    "encode_png",
    "export_hub",
    "find_partitions",
    "from_lite_tool_call",
    "hookimpl",
    "import_hub",
    "layout_of",
    "load_processor",
    "merge_roles",
    "merged",
    "parse_code",
    "partition_path",
    "prompt_settings",
    "read_settings",
    "registry",
    "resolve_dataset",
    "run_conversion",
    "sft_examples",
    "smart_resize",
    "to_lite_action",
    "to_lite_tool_call",
    "write_marker",
    "write_model_folder",
]
