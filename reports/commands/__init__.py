"""The top layer: every command's front door (`main`) and the pytest plugin. Nothing imports this package."""
