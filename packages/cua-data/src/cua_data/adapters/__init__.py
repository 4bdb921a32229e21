"""Model adapters: a family's prompt format in, its raw output back out as unified actions.

An adapter renders (instruction, history of turns, the current screenshot) into its family's chat
prompt, with images resized by the family's own rule, and parses what the model wrote back into
unified actions. Families are plugins (hook ``cua_data_register_adapters``); ``adapters()`` lists
what is installed. See ``cua_data.adapters.base`` for the contract.
"""

from cua_data.adapters.base import (
    Adapter,
    AdapterParseError,
    ParsedOutput,
    Prompt,
    RawOutput,
    Turn,
    as_image,
    data_url,
    merge_roles,
)
from cua_data.adapters.history import HistoryPolicy, TurnView
from cua_data.adapters.resize import smart_resize

__all__ = [
    "Adapter",
    "AdapterParseError",
    "HistoryPolicy",
    "ParsedOutput",
    "Prompt",
    "RawOutput",
    "Turn",
    "TurnView",
    "as_image",
    "data_url",
    "merge_roles",
    "smart_resize",
]
