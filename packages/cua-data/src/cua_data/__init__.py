"""cua-data: LiteSample rows, their Parquet + image store, converters and the torch Dataset."""

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

__all__ = [
    "PLATFORMS",
    "SPLITS",
    "TASK_TYPES",
    "ConversionReport",
    "Converted",
    "DatasetReader",
    "DatasetWriter",
    "ImageStore",
    "LiteSample",
    "Metadata",
    "Partition",
    "RLStep",
    "RLTrace",
    "SampleError",
    "StoreError",
    "WriteReport",
    "__version__",
    "converters",
    "export_hub",
    "find_partitions",
    "from_lite_tool_call",
    "import_hub",
    "resolve_dataset",
    "run_conversion",
    "to_lite_tool_call",
]
