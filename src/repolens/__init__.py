"""repolens: precise, fast, always-fresh code intelligence for AI coding agents."""

__version__ = "0.1.0"
