"""Wiring repolens into agents and editors: their MCP config files and instruction files."""
