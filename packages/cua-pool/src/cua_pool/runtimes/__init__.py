"""Built-in space runtimes, each a plugin loaded exactly like a third-party one."""
