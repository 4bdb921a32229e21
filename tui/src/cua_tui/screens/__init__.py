"""One module per screen; ``common`` holds what they share (tables that update in place, the filter)."""
